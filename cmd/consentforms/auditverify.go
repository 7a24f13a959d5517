package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// auditVerify is `consentforms audit verify [--tenant ID]`: it walks the hash chains of the
// audit log (docs/API.md §9.1) and prints the report. A broken chain prints the report too,
// naming the first entry that does not fit, and fails the command (exit 1).
func auditVerify(stdout io.Writer, tenantID *string) func(context.Context, tenants.Stores) (any, error) {
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if *tenantID != "" {
			if err := requireTenant(ctx, s, *tenantID); err != nil {
				return nil, err
			}
		}
		rep, err := tenants.VerifyChains(ctx, s.AuditChains, *tenantID, time.Now())
		if err != nil || rep.OK {
			return rep, err
		}
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the audit chain of tenant %s is broken at entry %s", rep.TenantID, rep.BrokenID)
	}
}

// auditVerifyEvery is how often the server verifies the audit chains.
const auditVerifyEvery = 24 * time.Hour

// auditVerifyLoop verifies every chain once a day until ctx ends. The day counts from the
// last verification kept in the store, so restarts neither skip nor repeat it, and several
// instances sharing a database verify about once a day between them.
func auditVerifyLoop(ctx context.Context, s tenants.Stores, log *slog.Logger) {
	for {
		wait, err := untilVerification(ctx, s, time.Now())
		if err != nil && ctx.Err() == nil {
			log.Warn("audit verify", "err", err)
			wait = time.Hour
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		rep, err := tenants.VerifyChains(ctx, s.AuditChains, "", time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("audit verify", "err", err)
		case err == nil && !rep.OK:
			log.Error("audit chain broken", "tenant", rep.TenantID, "entry", rep.BrokenID)
		case err == nil:
			log.Info("audit chains verified", "tenants", rep.Tenants, "entries", rep.Entries)
		}
	}
}

// untilVerification is how long until the next daily verification is due: a day after the
// latest one kept, or a minute after start when none is.
func untilVerification(ctx context.Context, s tenants.Stores, now time.Time) (time.Duration, error) {
	vs, err := s.AuditChains.Verifications(ctx)
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
	return max(last.Add(auditVerifyEvery).Sub(now), 0), nil
}
