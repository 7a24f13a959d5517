// Package intake is the one rule set records come in by (docs/API.md §3 and §6): ParseRecord
// reads a decoded body of any of the four record kinds into a Draft, with every reason to refuse
// it as a tenants.Violation. It is plain Go over decoded JSON: the API decodes, checks the form
// is open and renders; the operations store.
package intake

import (
	"github.com/consentforms/consentforms/tenants/anonymise"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
)

// Draft is a record body its kind's rules have read: everything the record will hold but its
// tenant and ids.
type Draft struct {
	Kind tenants.Kind
	// SubmissionID is the body's valid submission_id, the record's public id and idempotency
	// key; "" when the body has none (Record then mints one).
	SubmissionID string
	FormID       string // "" when the body names no form
	CreatedAt    time.Time
	Contact      tenants.Contact
	Address      tenants.Address
	Consents     tenants.Consents
	Payload      map[string]any // custom fields
	Fields       map[string]any // the kind's own known fields
	// Country is the tenant's default country the draft was read in ("" none): national phone
	// numbers of it are read as numbers, in the contact fields of section-6 records and in
	// custom fields (mentions).
	Country string
	// IDs are the identifiers of the draft's record (anonymise.Identifiers) as intake found
	// them; nil when not found yet. A draft changed after parsing must set it to nil.
	IDs *anonymise.IDs
}

// Record makes the record the draft stores for tenantID, its ids from tenants.NewRecord: a
// draft without a submission id gets a fresh public id on each call, so call it once.
func (d Draft) Record(tenantID string) tenants.Record {
	r := tenants.NewRecord(tenantID, d.Kind, d.SubmissionID, d.CreatedAt)
	r.FormID, r.Contact, r.Address, r.Consents, r.Payload, r.Fields = d.FormID, d.Contact, d.Address, d.Consents, d.Payload, d.Fields
	return r
}

// The own known keys of the kinds that take the submission body (docs/API.md §6.1, §6.2).
var (
	digitisationFields = []string{"document_ref", "digitised_by"}
	canvassingFields   = []string{"canvasser_id", "visited_at", "outcome", "notes"}
)

// ParseRecord reads body as a record of kind received at now. Form submissions and
// digitisation submissions follow the submission rules of docs/API.md §3, canvassing
// submissions the same rules with consents optional, phone-call tasks their own (§6.3). When
// the submission rules fail, every failed code is a violation, in the order of §3.7; otherwise
// the first failing own field of the kind is the one violation. Whether the named form is open
// is the caller's check (FormUnknown). country is the tenant's default country: the records
// volunteers type in (section 6) may carry national phone numbers of it; form submissions'
// phone_number is international only.
func ParseRecord(kind tenants.Kind, body map[string]any, now time.Time, country string) (Draft, []tenants.Violation) {
	now = now.UTC()
	if kind == tenants.KindPhoneCallTask {
		return parsePhoneCall(body, now, country)
	}
	rules, own := consent.FormRules, digitisationFields
	switch kind {
	case tenants.KindFormSubmission:
		own = nil
	case tenants.KindCanvassing:
		rules, own = consent.OptionalRules, canvassingFields
	}
	if kind != tenants.KindFormSubmission {
		rules.DefaultCountry = country
	}
	sub, codes := consent.Validate(body, own, now, rules)
	d := Draft{Kind: kind, SubmissionID: sub.SubmissionID, FormID: sub.FormID, CreatedAt: now, Contact: sub.Contact,
		Address: sub.Address, Consents: sub.Consents, Payload: sub.Payload, Fields: sub.Extra, Country: country}
	if tooManyIdentifiers(&d) {
		codes = append(codes, consent.CodeTooManyIdentifiers)
	}
	if len(codes) > 0 {
		return d, ruleViolations(codes)
	}
	if v := checkOwn(kind, d.Fields); v != nil {
		return d, []tenants.Violation{*v}
	}
	return d, nil
}

// checkOwn checks the own known fields of a kind that takes the submission body.
func checkOwn(kind tenants.Kind, fields map[string]any) *tenants.Violation {
	switch kind {
	case tenants.KindDigitisation:
		return checkStrings(fields, digitisationFields...)
	case tenants.KindCanvassing:
		return checkCanvassing(fields)
	}
	return nil
}
