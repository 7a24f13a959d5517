package ops

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// ActorSubject is the audit actor of what the person does themself through a link:
// confirming a double opt-in, withdrawing consent (docs/API.md §13).
const ActorSubject = "subject"

// viaWithdrawal names a withdrawal by the person in the revoked consents and the audit log.
const viaWithdrawal = "withdrawal"

// DoubleOptIn makes the draft's general-contact consents pending where its form asks double
// opt-in for the channel, lapsing after the form's confirmation period.
func DoubleOptIn(d *intake.Draft, f tenants.Form) {
	if len(f.DoubleOptIn) > 0 {
		d.Consents.RequireConfirmation(f, d.CreatedAt.Add(consent.ConfirmWithin(f.ConfirmWithin)))
	}
}

// RecordLinks are a record's links for the person at a moment.
type RecordLinks struct {
	// Confirm holds the confirmation URL of each consent pending at that moment.
	Confirm map[tenants.ConsentName]string
	// Withdraw is the withdrawal URL ("" when the record's general contact was never given).
	Withdraw string
	// Preferences is the preference page's URL ("" when the record holds no consent).
	Preferences string
}

// Links returns rec's links for the person at now; their base comes from ctx
// (links.WithBase) when no public URL is configured.
func (s *Core) Links(ctx context.Context, rec tenants.Record) RecordLinks {
	out := RecordLinks{Confirm: map[tenants.ConsentName]string{}}
	if s.PersonLinks == nil {
		return out
	}
	now := s.Now()
	for name, c := range rec.Consents.All() {
		if c.PendingAt(now) && rec.AnonymisedAt == nil {
			out.Confirm[name] = s.PersonLinks.ConfirmURL(ctx, rec, name)
		}
	}
	out.Withdraw = s.PersonLinks.WithdrawURL(ctx, rec, now)
	out.Preferences = s.PersonLinks.PreferencesURL(ctx, rec, now)
	return out
}

// LinkEvents adds each record's withdrawal URL to its consent events (events[i] is about
// recs[i]).
func (s *Core) LinkEvents(ctx context.Context, events []tenants.OutboxEvent, recs []tenants.Record) []tenants.OutboxEvent {
	if s.PersonLinks == nil {
		return events
	}
	now := s.Now()
	for i := range events {
		if i < len(recs) {
			events[i] = webhook.WithLinks(events[i], "", s.PersonLinks.WithdrawURL(ctx, recs[i], now))
		}
	}
	return events
}

// personEvents are the events of a newly stored record with its links: the consent.granted
// event with the withdrawal URL, and one consent.confirmation_requested per pending consent.
func (s *Core) personEvents(ctx context.Context, rec tenants.Record, events []tenants.OutboxEvent) []tenants.OutboxEvent {
	if s.PersonLinks == nil {
		return events
	}
	withdraw := s.PersonLinks.WithdrawURL(ctx, rec, rec.CreatedAt)
	for i := range events {
		events[i] = webhook.WithLinks(events[i], "", withdraw)
	}
	for name, c := range rec.Consents.All() {
		if c.Status == tenants.StatusPending {
			ev := webhook.ConfirmationRequested(rec, name, s.PersonLinks.ConfirmURL(ctx, rec, name), withdraw)
			if at, ok := s.remindAt(ctx, rec, *c); ok {
				ev = webhook.WithReminder(ev, at)
			}
			events = append(events, ev)
		}
	}
	return events
}

// remindAt is when the pending consent c of rec is mailed once more, by its form's setting;
// none when the form asks for no reminder or cannot be read (the confirmation still goes).
func (s *Core) remindAt(ctx context.Context, rec tenants.Record, c tenants.Consent) (time.Time, bool) {
	forms := s.Forms
	if s.FormCache != nil {
		forms = s.FormCache
	}
	if c.ConfirmBy == nil || forms == nil {
		return time.Time{}, false
	}
	f, err := forms.Get(ctx, rec.TenantID, rec.FormID)
	if err != nil {
		return time.Time{}, false
	}
	return consent.RemindAt(f.RemindAfter, rec.CreatedAt, *c.ConfirmBy)
}
