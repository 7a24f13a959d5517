// Package webhook builds, signs and delivers the outgoing consent-change webhooks
// (docs/WEBHOOKS.md): Standard Webhooks payloads and signatures, the check of endpoint URLs,
// and the dispatcher that fans the outbox out to endpoints and retries with backoff.
package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// payload is the body of every delivery: the Standard Webhooks envelope.
type payload struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      data   `json:"data"`
}

// data names what changed: ids, kinds, consent names and statuses, never a person's details.
type data struct {
	TenantID string                                 `json:"tenantId"`
	RecordID string                                 `json:"recordId"`
	Kind     tenants.Kind                           `json:"kind"`
	FormID   string                                 `json:"formId,omitempty"`
	Consent  string                                 `json:"consent,omitempty"`
	Consents map[tenants.ConsentName]payloadConsent `json:"consents,omitempty"`
	// ConfirmationURL is the link that confirms Consent (consent.confirmation_requested);
	// WithdrawURL the record's withdrawal link (consent events, docs/API.md §13).
	ConfirmationURL string `json:"confirmationUrl,omitempty"`
	WithdrawURL     string `json:"withdrawUrl,omitempty"`
	// PreferencesURL is the person's preference page: the withdrawal token under /p/ (§17).
	PreferencesURL string `json:"preferencesUrl,omitempty"`
}

// payloadConsent is one consent's status in a payload.
type payloadConsent struct {
	Status tenants.ConsentStatus `json:"status"`
}

// eventID returns a message id; key, when set, makes it deterministic.
func eventID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// event builds the outbox event of type typ about rec. key identifies the change, so that a
// repeat of it builds the same id.
func event(typ, key string, now time.Time, rec tenants.Record, consent string) tenants.OutboxEvent {
	d := data{TenantID: rec.TenantID, RecordID: rec.PublicID, Kind: rec.Kind, FormID: rec.FormID, Consent: consent}
	if rec.Kind != tenants.KindPhoneCallTask && rec.AnonymisedAt == nil {
		d.Consents = map[tenants.ConsentName]payloadConsent{}
		for name, c := range rec.Consents.All() {
			d.Consents[name] = payloadConsent{Status: c.DetailAt(now)}
		}
	}
	body, _ := json.Marshal(payload{Type: typ, Timestamp: now.UTC().Format(time.RFC3339), Data: d})
	return tenants.OutboxEvent{ID: eventID(key), TenantID: rec.TenantID, Type: typ, Time: now.UTC(), Payload: string(body)}
}

// Granted returns the consent.granted event of a newly stored record, or none when it grants
// nothing. Its id follows from the record: a repeated ingestion writes it once.
func Granted(rec tenants.Record) []tenants.OutboxEvent {
	for _, c := range rec.Consents.All() {
		if c.Status == tenants.StatusGranted {
			return []tenants.OutboxEvent{event(tenants.EventTypeConsentGranted, "granted:"+rec.ID, rec.CreatedAt, rec, "")}
		}
	}
	return nil
}

// Revoked returns one consent.revoked event per changed record; change names the call.
func Revoked(change string, now time.Time, changed []tenants.Record) []tenants.OutboxEvent {
	return each(tenants.EventTypeConsentRevoked, change, now, changed)
}

// Anonymised returns one record.anonymised event per erased record (typ is
// record.anonymised, or retention.anonymised for the retention job).
func Anonymised(typ, change string, now time.Time, erased []tenants.Record) []tenants.OutboxEvent {
	return each(typ, change, now, erased)
}

// Expired returns one consent.expired event per expired consent of rec, with deterministic ids.
func Expired(now time.Time, rec tenants.Record, consents []string) []tenants.OutboxEvent {
	out := make([]tenants.OutboxEvent, len(consents))
	for i, name := range consents {
		out[i] = event(tenants.EventTypeConsentExpired, "expired:"+rec.ID+":"+name, now, rec, name)
	}
	return out
}

func each(typ, change string, now time.Time, recs []tenants.Record) []tenants.OutboxEvent {
	out := make([]tenants.OutboxEvent, len(recs))
	for i, rec := range recs {
		out[i] = event(typ, typ+":"+change+":"+rec.ID, now, rec, "")
	}
	return out
}
