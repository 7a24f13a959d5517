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

// Channels names the general-contact consents a revocation reaches: both for an e-mail
// unsubscribe or a canvassing "do not contact", the phone alone for an SMS opt-out or a
// phone-bank "do not call".
type Channels struct{ Email, Phone bool }

// The channels of the revocations there are.
var (
	BothChannels = Channels{Email: true, Phone: true}
	PhoneChannel = Channels{Phone: true}
)

// detail names the consents revoked in the audit entry.
func (ch Channels) detail() string {
	switch ch {
	case BothChannels:
		return "generalContact"
	case PhoneChannel:
		return string(tenants.ConsentGeneralContactPhone)
	}
	return string(tenants.ConsentGeneralContactEmail)
}

// Unsubscribe revokes both general-contact consents (e-mail and phone) on every record of
// the tenant matching the identity that carries consents; primary purpose and every other
// consent stay as they are. It returns how many records it changed: a repeat changes none.
func (s *Persons) Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id Identity) (int, error) {
	return s.RevokeContact(ctx, tenantID, actor, via, requestID, []Identity{id}, BothChannels)
}

// RevokeContact revokes the general-contact consents of ch on every record of the tenant that
// belongs to any of ids (never one that only mentions them), in one change with one audit
// entry (consent.revoked, via naming the provider or source) and a consent.revoked event per
// record. It returns how many records it changed: a repeat changes none.
func (s *Core) RevokeContact(ctx context.Context, tenantID, actor, via, requestID string, ids []Identity, ch Channels) (int, error) {
	now := s.Now()
	var keys []string
	subject := ""
	for _, id := range ids {
		keys = append(keys, s.hashes(tenantID, id)...)
		if sub := s.Subject(tenantID, id); sub != "" && subject != "" {
			subject += "," + sub
		} else if sub != "" {
			subject = sub
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	changed, err := s.Writer.Revoke(ctx, tenants.Change{
		TenantID:  tenantID,
		MatchKeys: keys,
		Kinds:     unsubscribeKinds,
		Apply: func(rec *tenants.Record) (bool, error) {
			return rec.Consents.RevokeChannels(now, via, ch.Email, ch.Phone), nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionConsentRevoked,
				RecordIDs: publicIDs(changed), Counts: map[string]int{"revoked": len(changed)}, Subject: subject,
				Detail: ch.detail() + " via " + via, RequestID: requestID}}
		},
		Events: func(changed []tenants.Record) []tenants.OutboxEvent {
			return s.LinkEvents(ctx, webhook.Revoked(tenants.NewAuditID(now), now, changed), changed)
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
func (s *Persons) UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []Identity) (int, error) {
	return s.OptOutAll(ctx, tenantID, actor, via, requestID, ids, BothChannels)
}

// OptOutAll is UnsubscribeAll for the channels of ch (an SMS opt-out: the phone alone).
func (s *Persons) OptOutAll(ctx context.Context, tenantID, actor, via, requestID string, ids []Identity, ch Channels) (int, error) {
	seen := map[Identity]bool{}
	revoked := 0
	for _, id := range ids {
		if (id == Identity{}) || seen[id] {
			continue
		}
		seen[id] = true
		n, err := s.RevokeContact(ctx, tenantID, actor, via, requestID, []Identity{id}, ch)
		if err != nil {
			return revoked, err
		}
		revoked += n
	}
	return revoked, nil
}
