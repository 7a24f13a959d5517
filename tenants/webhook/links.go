package webhook

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/links"
)

// ConfirmationRequested is the consent.confirmation_requested event of rec's pending consent
// name, carrying its confirmation URL; its id follows from the record and consent, so that a
// repeated ingestion writes it once.
func ConfirmationRequested(rec tenants.Record, name tenants.ConsentName, confirmURL, withdrawURL string) tenants.OutboxEvent {
	ev := event(tenants.EventTypeConfirmationRequested, "confirm:"+rec.ID+":"+string(name), rec.CreatedAt, rec, string(name))
	return WithLinks(ev, confirmURL, withdrawURL)
}

// WithLinks returns ev with the confirmation and withdrawal URLs set in its data ("" leaves
// one out); the id stays. The links are the last fields of the payload's data object, so they
// are appended there (withLinksAppended) instead of decoding and encoding the payload again:
// that took two thirds of a submission's event cost.
func WithLinks(ev tenants.OutboxEvent, confirmURL, withdrawURL string) tenants.OutboxEvent {
	if confirmURL == "" && withdrawURL == "" {
		return ev
	}
	if p, ok := withLinksAppended(ev.Payload, confirmURL, withdrawURL); ok {
		ev.Payload = p
		return ev
	}
	var p payload
	if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil {
		return ev
	}
	p.Data.ConfirmationURL, p.Data.WithdrawURL = confirmURL, withdrawURL
	if withdrawURL != "" {
		p.Data.PreferencesURL = links.PreferencesOf(withdrawURL)
	}
	b, _ := json.Marshal(p)
	ev.Payload = string(b)
	return ev
}

// withLinksAppended writes the links into a payload as json.Marshal writes it: data is the
// envelope's last field and the links data's last ones, so a payload without links ends with
// data's "}" and the envelope's "}", and the links go just before them. A payload of another
// shape (links already set) is not changed (false).
func withLinksAppended(p, confirmURL, withdrawURL string) (string, bool) {
	if !strings.HasSuffix(p, "}}") || strings.Contains(p, `"confirmationUrl":`) || strings.Contains(p, `"withdrawUrl":`) {
		return "", false
	}
	b := make([]byte, 0, len(p)+len(confirmURL)+len(withdrawURL)+40)
	b = append(b, p[:len(p)-2]...)
	prefs := ""
	if withdrawURL != "" {
		prefs = links.PreferencesOf(withdrawURL)
	}
	for _, l := range []struct{ key, url string }{{"confirmationUrl", confirmURL}, {"withdrawUrl", withdrawURL}, {"preferencesUrl", prefs}} {
		if l.url == "" {
			continue
		}
		u, err := json.Marshal(l.url)
		if err != nil {
			return "", false
		}
		b = append(b, `,"`...)
		b = append(b, l.key...)
		b = append(b, `":`...)
		b = append(b, u...)
	}
	return string(append(b, "}}"...)), true
}

// WithReminder returns the consent.confirmation_requested event ev with remindAt set in its
// data: when the person is mailed once more if the consent still waits (the tenant's mail
// endpoint schedules that mail, OutboxEvent.DeliveriesTo). It is data's last field, after the
// links.
func WithReminder(ev tenants.OutboxEvent, at time.Time) tenants.OutboxEvent {
	if !strings.HasSuffix(ev.Payload, "}}") || strings.Contains(ev.Payload, `"remindAt":`) {
		return ev
	}
	ev.Payload = ev.Payload[:len(ev.Payload)-2] + `,"remindAt":"` + at.UTC().Format(time.RFC3339) + `"}}`
	return ev
}

// Confirmed is the consent.granted event of a confirmation of rec's consent name at now.
func Confirmed(now time.Time, rec tenants.Record, name tenants.ConsentName) tenants.OutboxEvent {
	return event(tenants.EventTypeConsentGranted, "confirmed:"+rec.ID+":"+string(name), now, rec, string(name))
}
