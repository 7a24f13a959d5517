package ops

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
)

// Receipt is the proof of one record's consents (docs/API.md §12.3): package api
// writes it in the ISO/IEC TS 27560 profile.
type Receipt struct {
	RecordID string
	Kind     tenants.Kind
	// ReceiptID names this issuance of the receipt.
	ReceiptID    string
	FormID       string
	CreatedAt    time.Time
	AnonymisedAt *time.Time
	// Subject is the keyed hash of the person's e-mail address, else phone number (their
	// belonging match key); "" once the record is anonymised.
	Subject string
	// Controller is the organisation: its tenant id, its name (the legal name where set), its
	// data-protection contact and postal address ("" none set).
	Controller struct{ ID, Name, Contact, Address string }
	Consents   []ReceiptConsent
	// Events are the changes of the consents, oldest first: given, confirmed, revoked, expired.
	Events []ReceiptEvent
	// Categories are the kinds of personal data the record holds (from the fields stored; none
	// once it is anonymised): "email", "phone", "name", "address", and "custom" for the custom
	// fields its form declares personal.
	Categories []string
	// Retention is how long the record is kept ("" until its consents are withdrawn or erased),
	// and what it counts from.
	Retention, RetentionFrom string
	// Jurisdiction is the organisation's jurisdiction, else its default country (ISO 3166
	// alpha-2; "" none set).
	Jurisdiction string
	// Recipients are who the record's changes are sent to: the tenant's webhook endpoints (by
	// host) and its mail server.
	Recipients []string
	// WithdrawURL is how the person withdraws (the withdrawal link; "" without links or once
	// the record is anonymised).
	WithdrawURL string
}

// ReceiptEvent is one change of a consent: what happened, when, and by whom (the data
// subject, the organisation, or the service itself for an expiry).
type ReceiptEvent struct {
	Consent tenants.ConsentName
	Type    string // "given", "confirmed", "revoked", "expired"
	At      time.Time
	Actor   string // "subject", "organisation", "system"
	// Via names how: the collection method of a grant, the provider or channel of a revocation.
	Via string
}

// ReceiptConsent is one consent of a receipt, its status read at the time of reading (a
// pending consent reads not_granted, as in every other read but the record read).
type ReceiptConsent struct {
	Name                           tenants.ConsentName
	Status                         tenants.ConsentStatus
	GrantedAt, Deadline, RevokedAt *time.Time
	// The proof fields as sent (consent_source, consent_ip_address, consent_timestamp).
	Source, IPAddress, Timestamp *string
	// Notice is the exact text the consent was given under; nil when none was published.
	Notice *tenants.ConsentText
	// Confirmation is the proof of a double opt-in (when, from where, with what); nil when the
	// consent needed none or is not confirmed.
	Confirmation *tenants.Confirmation
}

// ReceiptOf returns the receipt of the tenant's record of kind publicID: a form submission, a
// digitised paper form or a canvassing visit (the kinds that hold consents); tenants.ErrNotFound
// when it has none. An anonymised record still has one, without its subject.
func (s *Rights) ReceiptOf(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (Receipt, error) {
	if kind == tenants.KindPhoneCallTask {
		return Receipt{}, tenants.ErrNotFound
	}
	rec, err := s.Records.Get(ctx, tenantID, kind, publicID)
	if err != nil {
		return Receipt{}, err
	}
	return s.receiptOf(ctx, rec)
}

// receiptOf builds the receipt of rec.
func (s *Rights) receiptOf(ctx context.Context, rec tenants.Record) (Receipt, error) {
	now := s.Now()
	out := Receipt{RecordID: rec.PublicID, Kind: rec.Kind, ReceiptID: tenants.NewID("rc_"), FormID: rec.FormID,
		CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second), AnonymisedAt: utc(rec.AnonymisedAt), Subject: s.subjectKey(rec)}
	out.Controller.ID = rec.TenantID
	if s.Tenants != nil {
		t, err := s.Tenants.Get(ctx, rec.TenantID)
		if err != nil {
			return Receipt{}, wrap("receipt", err)
		}
		out.Controller.Name, out.Jurisdiction = t.DisplayName(), t.JurisdictionCode()
		out.Controller.Contact, out.Controller.Address = t.Identity.ContactEmail, t.Identity.Address
		out.Retention, out.RetentionFrom = t.Retention, t.RetentionFrom
	}
	if err := s.receiptContext(ctx, rec, &out); err != nil {
		return Receipt{}, wrap("receipt", err)
	}
	for name, c := range rec.Consents.All() {
		rc := ReceiptConsent{Name: name, Status: c.StatusAt(now), GrantedAt: utc(c.GrantedAt), Deadline: utc(c.Deadline),
			RevokedAt: utc(c.RevokedAt), Source: c.Source, IPAddress: c.IPAddress, Timestamp: c.Timestamp, Confirmation: c.Confirmation}
		if c.Text != nil {
			notice, err := s.notice(ctx, rec.TenantID, rec.FormID, c.Text.Version)
			if err != nil {
				return Receipt{}, wrap("receipt", err)
			}
			rc.Notice = notice
		}
		out.Consents = append(out.Consents, rc)
		out.Events = append(out.Events, consentEvents(name, *c, now)...)
	}
	sort.SliceStable(out.Events, func(i, j int) bool { return out.Events[i].At.Before(out.Events[j].At) })
	return out, nil
}

// subjectKey is the belonging match key of rec's e-mail address, else of its phone number; ""
// when it has neither (an anonymised record).
func (s *Rights) subjectKey(rec tenants.Record) string {
	if rec.AnonymisedAt != nil {
		return ""
	}
	ids := anonymise.Identifiers(rec, "")
	switch {
	case len(ids.Emails) > 0:
		return s.Hasher.Hash(rec.TenantID, domainEmail, ids.Emails[0])
	case len(ids.Phones) > 0:
		return s.Hasher.Hash(rec.TenantID, domainPhone, ids.Phones[0])
	}
	return ""
}

// notice finds a version of the form's texts by id, nil when the form has no such version.
func (s *Rights) notice(ctx context.Context, tenantID, formID, version string) (*tenants.ConsentText, error) {
	texts, err := s.texts(ctx, tenantID, formID)
	if t := findText(texts, version); t != nil || err != nil || s.Texts == nil {
		return t, err
	}
	texts, err = s.Texts.Reload(ctx, tenantID, formID)
	return findText(texts, version), err
}

func findText(texts []tenants.ConsentText, id string) *tenants.ConsentText {
	for i := range texts {
		if texts[i].ID == id {
			t := texts[i]
			return &t
		}
	}
	return nil
}

// receiptContext fills what a receipt says about the record beyond its consents: the form's
// retention, the personal-data categories it holds, its recipients and the withdrawal method.
func (s *Rights) receiptContext(ctx context.Context, rec tenants.Record, out *Receipt) error {
	personal := map[string]bool{}
	if rec.FormID != "" && s.Forms != nil {
		f, err := s.Forms.Get(ctx, rec.TenantID, rec.FormID)
		switch {
		case err == nil:
			personal = f.PersonalFields()
			if f.Retention != "" {
				out.Retention, out.RetentionFrom = f.Retention, f.RetentionFrom
			}
		case !errors.Is(err, tenants.ErrNotFound):
			return err
		}
	}
	if rec.AnonymisedAt == nil {
		out.Categories = dataCategories(rec, personal)
		if s.PersonLinks != nil {
			out.WithdrawURL = s.PersonLinks.WithdrawURL(ctx, rec, s.Now())
		}
	}
	if s.Outbox != nil {
		eps, err := s.Outbox.Endpoints(ctx, rec.TenantID)
		if err != nil {
			return err
		}
		for _, e := range eps {
			switch u, err := url.Parse(e.URL); {
			case e.URL == tenants.MailEndpointURL:
				out.Recipients = append(out.Recipients, "the organisation's mail server")
			case err == nil && u.Host != "":
				out.Recipients = append(out.Recipients, "webhook "+u.Host)
			}
		}
	}
	return nil
}

// dataCategories are the kinds of personal data rec holds.
func dataCategories(rec tenants.Record, personal map[string]bool) []string {
	set := func(p *string) bool { return p != nil && *p != "" }
	var out []string
	if set(rec.Contact.Email) {
		out = append(out, "email")
	}
	if set(rec.Contact.PhoneNumber) {
		out = append(out, "phone")
	}
	if set(rec.Contact.FirstName) || set(rec.Contact.LastName) {
		out = append(out, "name")
	}
	if set(rec.Address.Street) || set(rec.Address.City) || set(rec.Address.Postcode) {
		out = append(out, "address")
	}
	for name := range rec.Fields {
		if personal[name] {
			out = append(out, "custom")
			break
		}
	}
	return out
}

// consentEvents are the changes the stored consent c shows, read at now.
func consentEvents(name tenants.ConsentName, c tenants.Consent, now time.Time) []ReceiptEvent {
	var out []ReceiptEvent
	via := ""
	if c.Source != nil {
		via = *c.Source
	}
	if c.GrantedAt != nil {
		out = append(out, ReceiptEvent{Consent: name, Type: "given", At: c.GrantedAt.UTC(), Actor: "subject", Via: via})
	}
	if c.Confirmation != nil {
		out = append(out, ReceiptEvent{Consent: name, Type: "confirmed", At: c.Confirmation.At.UTC(), Actor: "subject", Via: "confirmation link"})
	}
	if c.RevokedAt != nil {
		actor := "subject"
		if c.RevokedBy == "admin" || c.RevokedBy == "api" {
			actor = "organisation"
		}
		out = append(out, ReceiptEvent{Consent: name, Type: "revoked", At: c.RevokedAt.UTC(), Actor: actor, Via: c.RevokedBy})
	}
	if c.StatusAt(now) == tenants.StatusExpired && c.Deadline != nil {
		out = append(out, ReceiptEvent{Consent: name, Type: "expired", At: c.Deadline.UTC(), Actor: "system"})
	}
	return out
}
