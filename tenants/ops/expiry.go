package ops

import (
	"context"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// expiryBatch is how many records one write of the expiry job changes.
const expiryBatch = 500

// ExpireDue records, for every consent whose deadline has passed, the expiry in its record and
// in the audit log. Status reads apply deadlines at once; this makes the stored status and the
// audit log catch up. It returns how many consents expired.
func (s *Service) ExpireDue(ctx context.Context) (int, error) {
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
			return s.linkEvents(ctx, evs, slices.Repeat([]tenants.Record{rec}, len(evs)))
		}})
	s.Observe().Count(tenants.EventConsentExpired, n)
	return n, wrap("expire", err)
}
