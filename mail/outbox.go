package mail

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/links"
)

// Outbox sends the deliveries of the tenants' mail endpoints (the dispatcher's Mailer): each
// delivery is an outbox event — a confirmation to send, a new record's grants — which it turns
// into the mail for the person, in the form's language, through the tenant's mail server. The
// address is read from the record when the mail is sent, never kept with the delivery: a
// record erased before then has none, and nothing is sent.
type Outbox struct {
	Records tenants.RecordStore
	Forms   tenants.FormStore
	Tenants tenants.TenantStore
	// Server returns the tenant's mail server; tenants.ErrNotFound when it has none.
	Server func(ctx context.Context, tenantID string) (tenants.MailServer, error)
	// Timeout bounds one mail's SMTP session (0: DefaultTimeout).
	Timeout time.Duration
	// Sent, when set, hears of each mail's outcome by tenant (metrics; never an address).
	Sent func(tenantID string, kind Kind, o Outcome)
}

// event is the part of an outbox event's payload a mail needs: ids and links, no personal data.
type event struct {
	Type string `json:"type"`
	Data struct {
		TenantID        string       `json:"tenantId"`
		RecordID        string       `json:"recordId"`
		Kind            tenants.Kind `json:"kind"`
		FormID          string       `json:"formId"`
		Consent         string       `json:"consent"`
		ConfirmationURL string       `json:"confirmationUrl"`
		WithdrawURL     string       `json:"withdrawUrl"`
	} `json:"data"`
}

// Mail sends dl's mail: it answers what the delivery log keeps (the server's answer, or why no
// mail went), whether the server took it, and whether no repeat would change that.
func (o *Outbox) Mail(ctx context.Context, dl tenants.Delivery) (result string, sent, final bool) {
	var ev event
	if err := json.Unmarshal([]byte(dl.Payload), &ev); err != nil {
		return "no mail: the event cannot be read", false, true
	}
	kind, ok := mailKind(dl.Type, ev.Data.Consent)
	if !ok {
		return "no mail for this event", true, true
	}
	rec, err := o.Records.Get(ctx, dl.TenantID, ev.Data.Kind, ev.Data.RecordID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return "no mail: the record is gone", false, true
	case err != nil:
		return "store unavailable", false, false
	case rec.AnonymisedAt != nil || rec.Contact.Email == nil || *rec.Contact.Email == "":
		return "no mail: the record has no address (erased or never given)", false, true
	}
	f, err := o.Forms.Get(ctx, dl.TenantID, rec.FormID)
	if err != nil && !errors.Is(err, tenants.ErrNotFound) {
		return "store unavailable", false, false
	}
	switch {
	case (kind == Confirmation || kind == Reminder) && !rec.Consents.GeneralContactEmail.PendingAt(time.Now()):
		return "no mail: nothing waits for confirmation any more", true, true
	case kind == ThankYou && !f.ThankYouMail:
		return "no mail: the form sends no thank-you", true, true
	}
	srv, err := o.Server(ctx, dl.TenantID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return "no mail server set", false, true
	case err != nil:
		return "mail server settings unreadable", false, false
	}
	org := ""
	if t, err := o.Tenants.Get(ctx, dl.TenantID); err == nil {
		org = t.Name
	}
	msg, err := o.message(kind, f, org, rec, ev, dl.EventID)
	if err != nil {
		return "no mail: " + err.Error(), false, true
	}
	res := Send(ctx, Server{Host: srv.Host, Port: srv.Port, TLS: srv.TLS, User: srv.User, Password: srv.Password,
		From: srv.From, ReplyTo: srv.ReplyTo}, msg, o.Timeout)
	if o.Sent != nil {
		o.Sent(dl.TenantID, kind, res.Outcome)
	}
	return res.Answer, res.Outcome == Sent, res.Outcome == Final
}

// mailKind is the mail an event sends: the confirmation of a pending e-mail consent, the
// thank-you for a new record's grants (a confirmation's grant names its consent and sends none).
func mailKind(typ, consent string) (Kind, bool) {
	switch {
	case typ == tenants.EventTypeConfirmationRequested && consent == string(tenants.ConsentGeneralContactEmail):
		return Confirmation, true
	case typ == tenants.EventTypeConfirmationReminder && consent == string(tenants.ConsentGeneralContactEmail):
		return Reminder, true
	case typ == tenants.EventTypeConsentGranted && consent == "":
		return ThankYou, true
	}
	return "", false
}

// message renders the mail of kind for rec in its form's language, with the person's links.
func (o *Outbox) message(kind Kind, f tenants.Form, org string, rec tenants.Record, ev event, id string) (Message, error) {
	name := f.Name
	if name == "" {
		name = f.FormID
	}
	first := ""
	if rec.Contact.FirstName != nil {
		first = *rec.Contact.FirstName
	}
	t, err := Default(kind, f.Language).Render(Values{PlaceholderConfirmURL: ev.Data.ConfirmationURL,
		PlaceholderPreferencesURL: links.PreferencesOf(ev.Data.WithdrawURL), PlaceholderFormName: name, PlaceholderOrgName: org, PlaceholderFirstName: first})
	if err != nil {
		return Message{}, err
	}
	m := Message{ID: id, To: *rec.Contact.Email, Subject: t.Subject, Text: t.Text, HTML: t.HTML}
	if ev.Data.WithdrawURL != "" {
		m.Headers = UnsubscribeHeaders(links.PreferencesOf(ev.Data.WithdrawURL))
	}
	return m, nil
}
