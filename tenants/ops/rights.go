package ops

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
)

// RecordView is one record in an access export: the read shape of a form submission
// (docs/API.md §7.1) plus the kind's own fields.
type RecordView struct {
	SubmissionID string
	FormID       string
	CreatedAt    time.Time
	Contact      tenants.Contact
	Address      tenants.Address
	Consents     ConsentsView
	Payload      map[string]any
	Fields       map[string]any
	AnonymisedAt *time.Time
	// WithdrawURL and PreferencesURL are the record's withdrawal link and preference page ("" none),
	// as in the record read.
	WithdrawURL, PreferencesURL string
}

// PersonExport is a person's data in one tenant (docs/API.md §5.5).
type PersonExport struct {
	GeneratedAt time.Time
	Subject     struct {
		Email       *string
		PhoneNumber *string
	}
	GeneralContact struct {
		Email tenants.ConsentStatus
		Phone tenants.ConsentStatus
	}
	Records struct {
		FormSubmissions         []RecordView
		DigitisationSubmissions []RecordView
		CanvassingSubmissions   []RecordView
		PhoneCallTasks          []RecordView
	}
	// Receipts are the consent receipts of the form submissions (docs/API.md §12.3).
	Receipts []Receipt
}

// Export returns every record of the tenant matching the identity, newest first per kind,
// found through the match-key index as erasure finds them, and audits gdpr.exported with the
// counts only.
func (s *Rights) Export(ctx context.Context, tenantID, actor, requestID string, id Identity) (PersonExport, error) {
	recs, err := s.find(ctx, tenantID, id)
	if err != nil {
		return PersonExport{}, wrap("export", err)
	}
	now := s.Now().UTC()
	var out PersonExport
	out.GeneratedAt = now.Truncate(time.Second)
	out.Subject.Email, out.Subject.PhoneNumber = nonEmpty(id.Email), nonEmpty(id.Phone)
	r := &out.Records
	r.FormSubmissions, r.DigitisationSubmissions, r.CanvassingSubmissions, r.PhoneCallTasks = []RecordView{}, []RecordView{}, []RecordView{}, []RecordView{}
	out.Receipts = []Receipt{}
	var emails, phones []tenants.ConsentStatus
	for _, rec := range recs {
		v := viewRecord(rec, now)
		if s.PersonLinks != nil {
			v.WithdrawURL = s.PersonLinks.WithdrawURL(ctx, rec, now)
			v.PreferencesURL = s.PersonLinks.PreferencesURL(ctx, rec, now)
		}
		emails, phones = append(emails, v.Consents.GeneralContactEmail.Status), append(phones, v.Consents.GeneralContactPhone.Status)
		switch rec.Kind {
		case tenants.KindFormSubmission:
			r.FormSubmissions = append(r.FormSubmissions, v)
			receipt, err := s.receiptOf(ctx, rec)
			if err != nil {
				return PersonExport{}, wrap("export", err)
			}
			out.Receipts = append(out.Receipts, receipt)
		case tenants.KindDigitisation:
			r.DigitisationSubmissions = append(r.DigitisationSubmissions, v)
		case tenants.KindCanvassing:
			r.CanvassingSubmissions = append(r.CanvassingSubmissions, v)
		case tenants.KindPhoneCallTask:
			r.PhoneCallTasks = append(r.PhoneCallTasks, v)
		}
	}
	out.GeneralContact.Email, out.GeneralContact.Phone = Aggregate(emails), Aggregate(phones)
	err = s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionGDPRExported,
		Counts: tenants.CountKinds(recs).Map(), RequestID: requestID})
	return out, wrap("export", err)
}

func viewRecord(rec tenants.Record, now time.Time) RecordView {
	v := RecordView{SubmissionID: rec.PublicID, FormID: rec.FormID, CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second),
		Contact: rec.Contact, Address: rec.Address, Consents: ViewConsents(rec.Consents, now), Payload: rec.Payload,
		Fields: rec.Fields, AnonymisedAt: utc(rec.AnonymisedAt)}
	if v.Payload == nil {
		v.Payload = map[string]any{}
	}
	if v.Fields == nil {
		v.Fields = map[string]any{}
	}
	return v
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Channels of the re-permission list and the consent each reads.
var expiringChannels = map[string]tenants.ConsentName{"email": tenants.ConsentGeneralContactEmail, "phone": tenants.ConsentGeneralContactPhone}

// ExpiringRequest is one request for a page of the re-permission list.
type ExpiringRequest struct {
	Channel string    // email or phone
	FormID  string    // "" = every form
	Within  string    // the window as given, for the audit log
	Until   time.Time // the end of the window (now + within)
	Cursor  string    // "" = the first page
	Limit   int
}

// ExpiringItem is one entry of the re-permission list (docs/API.md §7.3).
type ExpiringItem struct {
	SubmissionID string
	Kind         tenants.Kind
	FormID       string
	Email        *string
	PhoneNumber  *string
	FirstName    *string
	Deadline     time.Time
}

// ExpiringPage is a page of the re-permission list; NextCursor is nil on the last page.
type ExpiringPage struct {
	Items      []ExpiringItem
	NextCursor *string
}

// BadCursor refuses a cursor this service did not hand to this tenant.
var BadCursor = tenants.Violation{Field: "cursor", Code: "cursor_invalid", Message: "cursor is not a cursor of this list."}

// ErrBadCursor is returned for BadCursor.
var ErrBadCursor = errors.New(BadCursor.Message)

// Expiring returns a page of the tenant's records whose general-contact consent for the
// channel is granted and expires within the window, by deadline, and audits
// consents.expiring_listed with the count.
func (s *Rights) Expiring(ctx context.Context, tenantID, actor, requestID string, r ExpiringRequest) (ExpiringPage, error) {
	name, ok := expiringChannels[r.Channel]
	if !ok {
		return ExpiringPage{}, fmt.Errorf("expiring: unknown channel %q", r.Channel)
	}
	q := tenants.ExpiringQuery{Consent: name, FormID: r.FormID, After: s.Now().UTC(), Until: r.Until, Limit: r.Limit + 1}
	if r.Cursor != "" {
		c, ok := decodeCursor(tenantID, r.Cursor)
		if !ok {
			return ExpiringPage{}, ErrBadCursor
		}
		q.Cursor = &c
	}
	recs, err := s.Rights.Expiring(ctx, tenantID, q)
	if err != nil {
		return ExpiringPage{}, wrap("expiring", err)
	}
	out := ExpiringPage{Items: []ExpiringItem{}}
	if len(recs) > r.Limit {
		recs = recs[:r.Limit]
		last := recs[len(recs)-1]
		next := encodeCursor(tenants.ExpiringCursor{Deadline: *last.Consents.ByName(name).Deadline, ID: last.ID})
		out.NextCursor = &next
	}
	for _, rec := range recs {
		it := ExpiringItem{SubmissionID: rec.PublicID, Kind: rec.Kind, FormID: rec.FormID, FirstName: rec.Contact.FirstName,
			Deadline: rec.Consents.ByName(name).Deadline.UTC()}
		if r.Channel == "email" {
			it.Email = rec.Contact.Email
		} else {
			it.PhoneNumber = rec.Contact.PhoneNumber
		}
		out.Items = append(out.Items, it)
	}
	detail := "channel=" + r.Channel + " within=" + r.Within
	if r.FormID != "" {
		detail += " form=" + r.FormID
	}
	err = s.Audit.Append(ctx, tenants.AuditEntry{Time: s.Now().UTC(), TenantID: tenantID, Actor: actor,
		Action: tenants.ActionConsentsExpiringListed, Counts: map[string]int{"items": len(out.Items)}, Detail: detail, RequestID: requestID})
	return out, wrap("expiring", err)
}

// encodeCursor writes a cursor as base64url of "deadline-ms:record-id".
func encodeCursor(c tenants.ExpiringCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.Deadline.UnixMilli(), 10) + ":" + c.ID))
}

// decodeCursor reads a cursor; ok is false for one that is malformed or names another
// tenant's record.
func decodeCursor(tenantID, s string) (tenants.ExpiringCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return tenants.ExpiringCursor{}, false
	}
	msText, id, ok := strings.Cut(string(b), ":")
	ms, err := strconv.ParseInt(msText, 10, 64)
	if !ok || err != nil || !strings.HasPrefix(id, tenantID+":") {
		return tenants.ExpiringCursor{}, false
	}
	return tenants.ExpiringCursor{Deadline: time.UnixMilli(ms).UTC(), ID: id}, true
}

// ParseExpiring reads the re-permission list's filter as a client gives it (channel email or
// phone, a form id or "", a window such as 30d) at now: the rules the API and the staff UI
// share. Each violation names its input (channel, within, form), in that order; the messages
// are the API's, and a surface may word them its own way by field.
func ParseExpiring(channel, formID, within string, now time.Time) (ExpiringRequest, []tenants.Violation) {
	r := ExpiringRequest{Channel: channel, FormID: formID, Within: within}
	var vs []tenants.Violation
	if _, ok := expiringChannels[channel]; !ok {
		vs = append(vs, tenants.Violation{Field: "channel", Code: "invalid", Message: "channel must be email or phone."})
	}
	iv, err := consent.ParseInterval(within)
	until, ok := iv.From(now.UTC())
	switch {
	case err != nil:
		vs = append(vs, tenants.Violation{Field: "within", Code: "invalid", Message: "within must be an interval such as 30d, 2w or P1M."})
	case !ok:
		vs = append(vs, tenants.Violation{Field: "within", Code: "out_of_range", Message: "within reaches past the year 9999."})
	}
	r.Until = until
	if formID != "" && !tenants.ValidFormID(formID) {
		vs = append(vs, tenants.Violation{Field: "form", Code: "invalid", Message: "form must be a form id."})
	}
	return r, vs
}
