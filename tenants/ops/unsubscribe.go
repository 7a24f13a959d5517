package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
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
			return s.linkEvents(ctx, webhook.Revoked(tenants.NewAuditID(now), now, changed), changed)
		},
	})
	if err != nil {
		return 0, wrap("unsubscribe", err)
	}
	s.Observe().Count(tenants.EventUnsubscribe, 1)
	return len(changed), nil
}

// EventIdentity is the person a provider's unsubscribe event names: its e-mail and phone
// (read in the tenant's default country), each normalised; a malformed one is left out, so
// that the provider does not retry an event nobody can be found by.
func EventIdentity(ev unsubscribe.Event, country string) Identity {
	var id Identity
	if e, ok := contact.NormaliseEmail(ev.Email); ok {
		id.Email = e
	}
	if p, ok := contact.NormalisePhone(ev.Phone, country); ok {
		id.Phone = p
	}
	return id
}

// UnsubscribeAll unsubscribes each person of a delivery once, in order, skipping the empty
// identity and repeats; it returns how many records changed, stopping at the first failure.
func (s *Service) UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []Identity) (int, error) {
	seen := map[Identity]bool{}
	revoked := 0
	for _, id := range ids {
		if (id == Identity{}) || seen[id] {
			continue
		}
		seen[id] = true
		n, err := s.Unsubscribe(ctx, tenantID, actor, via, requestID, id)
		if err != nil {
			return revoked, err
		}
		revoked += n
	}
	return revoked, nil
}
