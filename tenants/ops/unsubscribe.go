package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// unsubscribeKinds are the record kinds that carry consents.
var unsubscribeKinds = []tenants.Kind{tenants.KindFormSubmission, tenants.KindDigitisation, tenants.KindCanvassing}

// Unsubscribe revokes both general-contact consents (e-mail and phone) on every record of
// the tenant matching the identity that carries consents; primary purpose and every other
// consent stay as they are. It returns how many records it changed: a repeat changes none.
func (s *Service) Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id Identity) (int, error) {
	now := s.Now()
	subject := s.Subject(tenantID, id)
	changed, err := s.Writer.Revoke(ctx, tenants.Change{
		TenantID:  tenantID,
		MatchKeys: s.hashes(tenantID, id),
		Kinds:     unsubscribeKinds,
		Apply: func(rec *tenants.Record) (bool, error) {
			return rec.Consents.RevokeGeneralContact(now, via), nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionConsentRevoked,
				RecordIDs: publicIDs(changed), Counts: map[string]int{"revoked": len(changed)}, Subject: subject,
				Detail: "generalContact via " + via, RequestID: requestID}}
		},
		Events: func(changed []tenants.Record) []tenants.OutboxEvent {
			return webhook.Revoked(tenants.NewAuditID(now), now, changed)
		},
	})
	if err != nil {
		return 0, wrap("unsubscribe", err)
	}
	s.Observe().Count(tenants.EventUnsubscribe, 1)
	return len(changed), nil
}
