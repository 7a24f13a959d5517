package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// VerifyEvery is how often the server verifies the audit chains.
const VerifyEvery = 24 * time.Hour

// ChainVerification is the job that verifies every tenant's audit chain once a day while
// held reports this instance holds the job's lease. The day counts from the last
// verification kept in the store, so restarts neither skip nor repeat it, and several
// instances sharing a database verify about once a day between them. A broken chain is
// logged as an error naming the tenant and the entry, never what the entry holds.
func ChainVerification(chains tenants.AuditChainRepo, held func() bool, log *slog.Logger) Job {
	return Job{Name: "audit verify", Run: func(ctx context.Context) {
		for {
			wait, err := UntilVerification(ctx, chains, time.Now())
			if err != nil && ctx.Err() == nil {
				log.Warn("audit verify", "err", err)
				wait = time.Hour
			}
			if pause(ctx, wait) != nil {
				return
			}
			if !held() {
				// Another instance verifies; look again in a minute (it may stop).
				if pause(ctx, time.Minute) != nil {
					return
				}
				continue
			}
			rep, err := tenants.VerifyChains(ctx, chains, "", time.Now())
			switch {
			case err != nil && ctx.Err() == nil:
				log.Warn("audit verify", "err", err)
			case err == nil && !rep.OK:
				log.Error("audit chain broken", "tenant", rep.TenantID, "entry", rep.BrokenID)
			case err == nil:
				log.Info("audit chains verified", "tenants", rep.Tenants, "entries", rep.Entries)
			}
		}
	}}
}

// UntilVerification is how long until the next daily verification is due: VerifyEvery after
// the latest one kept, or a minute after start when none is.
func UntilVerification(ctx context.Context, chains tenants.AuditChainRepo, now time.Time) (time.Duration, error) {
	vs, err := chains.Verifications(ctx)
	if err != nil {
		return 0, err
	}
	var last time.Time
	for _, v := range vs {
		if v.VerifiedAt.After(last) {
			last = v.VerifiedAt
		}
	}
	if last.IsZero() {
		return time.Minute, nil
	}
	return max(last.Add(VerifyEvery).Sub(now), 0), nil
}
