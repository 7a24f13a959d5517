package webhook

import (
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// ConfirmationRequested is the consent.confirmation_requested event of rec's pending consent
// name, carrying its confirmation URL; its id follows from the record and consent, so that a
// repeated ingestion writes it once.
func ConfirmationRequested(rec tenants.Record, name tenants.ConsentName, confirmURL, withdrawURL string) tenants.OutboxEvent {
	ev := event(tenants.EventTypeConfirmationRequested, "confirm:"+rec.ID+":"+string(name), rec.CreatedAt, rec, string(name))
	return WithLinks(ev, confirmURL, withdrawURL)
}

// WithLinks returns ev with the confirmation and withdrawal URLs set in its data ("" leaves
// one out); the id stays.
func WithLinks(ev tenants.OutboxEvent, confirmURL, withdrawURL string) tenants.OutboxEvent {
	if confirmURL == "" && withdrawURL == "" {
		return ev
	}
	var p payload
	if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil {
		return ev
	}
	p.Data.ConfirmationURL, p.Data.WithdrawURL = confirmURL, withdrawURL
	b, _ := json.Marshal(p)
	ev.Payload = string(b)
	return ev
}

// Confirmed is the consent.granted event of a confirmation of rec's consent name at now.
func Confirmed(now time.Time, rec tenants.Record, name tenants.ConsentName) tenants.OutboxEvent {
	return event(tenants.EventTypeConsentGranted, "confirmed:"+rec.ID+":"+string(name), now, rec, string(name))
}
