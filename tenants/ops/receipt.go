package ops

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
)

// Receipt is the proof of one form submission's consents (docs/API.md §12.3): package api
// writes it in the ISO/IEC TS 27560 profile.
type Receipt struct {
	RecordID     string
	FormID       string
	CreatedAt    time.Time
	AnonymisedAt *time.Time
	// Subject is the keyed hash of the person's e-mail address, else phone number (their
	// belonging match key); "" once the record is anonymised.
	Subject    string
	Controller struct{ ID, Name string }
	Consents   []ReceiptConsent
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

// Receipt returns the receipt of the tenant's form submission publicID; tenants.ErrNotFound
// when it has none. An anonymised record still has one, without its subject.
func (s *Rights) Receipt(ctx context.Context, tenantID, publicID string) (Receipt, error) {
	rec, err := s.Records.Get(ctx, tenantID, tenants.KindFormSubmission, publicID)
	if err != nil {
		return Receipt{}, err
	}
	return s.receiptOf(ctx, rec)
}

// receiptOf builds the receipt of rec.
func (s *Rights) receiptOf(ctx context.Context, rec tenants.Record) (Receipt, error) {
	now := s.Now()
	out := Receipt{RecordID: rec.PublicID, FormID: rec.FormID, CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second),
		AnonymisedAt: utc(rec.AnonymisedAt), Subject: s.subjectKey(rec)}
	out.Controller.ID = rec.TenantID
	if s.Tenants != nil {
		t, err := s.Tenants.Get(ctx, rec.TenantID)
		if err != nil {
			return Receipt{}, wrap("receipt", err)
		}
		out.Controller.Name = t.Name
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
	}
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
