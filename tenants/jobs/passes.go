package jobs

import (
	"context"
	"fmt"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Passes are the background passes over every tenant's data: consent expiry, retention and
// bulk erasure. Each pass is safe to repeat and to run on several instances at once (the
// store's writes are conditional, the audit ids of expiry derived from what they record);
// the server runs each under its lease, the CLI runs retention once. They go through the
// cases of package ops where a person's case does the same (erasure, the person's links).
type Passes struct {
	Ops ops.Cases
	// Catalogue lists what retention goes through (RunRetention only).
	Catalogue Catalogue
}

// expiryBatch is how many records one write of the expiry pass changes.
const expiryBatch = 500

// ExpireDue records, for every consent whose deadline has passed, the expiry in its record and
// in the audit log. Status reads apply deadlines at once; this makes the stored status and the
// audit log catch up. It returns how many consents expired.
func (p *Passes) ExpireDue(ctx context.Context) (int, error) {
	s := p.Ops.Core
	now := s.Now().UTC()
	n, err := s.Writer.Expire(ctx, tenants.ExpiryRun{Now: now, Limit: expiryBatch,
		Audit: func(rec tenants.Record, consents []string) []tenants.AuditEntry {
			out := make([]tenants.AuditEntry, len(consents))
			for i, name := range consents {
				// A deterministic id: a repeated run (another instance, a crash) appends nothing twice.
				out[i] = tenants.AuditEntry{ID: "expired:" + rec.ID + ":" + name, Time: now, TenantID: rec.TenantID,
					Actor: tenants.ActorSystem, Action: tenants.ActionConsentExpired, RecordIDs: []string{rec.PublicID}, Detail: name}
			}
			return out
		},
		Events: func(rec tenants.Record, consents []string) []tenants.OutboxEvent {
			evs := webhook.Expired(now, rec, consents)
			return s.LinkEvents(ctx, evs, slices.Repeat([]tenants.Record{rec}, len(evs)))
		}})
	s.Observe().Count(tenants.EventConsentExpired, n)
	if err != nil {
		return n, fmt.Errorf("expire: %w", err)
	}
	return n, nil
}
