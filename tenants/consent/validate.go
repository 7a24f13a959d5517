package consent

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// Rules selects which submission rules apply; the record kinds differ.
type Rules struct {
	RequireFormID      bool // form_id_missing when absent (form submissions, digitisation)
	RequireConsent     bool // consent_missing when no flag is true (form submissions, digitisation)
	CustomNeedsPrimary bool // custom fields require consent_to_primary_purpose (docs/API.md §3.2, rule 3) (form submissions, digitisation)
	// DefaultCountry reads a national phone_number in that country (ISO 3166 alpha-2): the
	// tenant's setting, for the records volunteers type in (docs/API.md §6). "" refuses them.
	DefaultCountry string
}

// FormRules are the rules of accept-submission and digitisation submissions.
var FormRules = Rules{RequireFormID: true, RequireConsent: true, CustomNeedsPrimary: true}

// OptionalRules are the rules for canvassing: consents optional, checked when given.
var OptionalRules = Rules{}

// Submission is a validated, normalised submission body.
type Submission struct {
	FormID       string           // "" when absent
	SubmissionID string           // "" when absent
	Contact      tenants.Contact  // trimmed; empty strings become nil; PhoneNumber in E.164
	Address      tenants.Address  // trimmed; empty strings become nil
	Consents     tenants.Consents // granted or not_granted, with deadline and proof on granted ones
	Payload      map[string]any   // every key that is not known, value as decoded (nil if none)
	Extra        map[string]any   // the keys named in extraKnown that were present (nil if none)
	TextVersion  string           // consent_text_version, "" when absent; its form's check is the caller's
	EmailKey     string           // normalised (lower-cased) e-mail, "" if none
	PhoneKey     string           // E.164 phone, "" if none
}

// validation is the state of one Validate call.
type validation struct {
	body    map[string]any
	codes   codeSet
	country string // Rules.DefaultCountry
}

// textVersion reads consent_text_version: a version id's syntax, "" when absent or null.
// Whether it names a version of the form is the caller's check, with the same code.
func (v *validation) textVersion() string {
	raw := v.body[keyTextVersion]
	if raw == nil {
		return ""
	}
	if s, ok := raw.(string); ok && tenants.ValidID(s) {
		return s
	}
	v.codes.add(CodeTextVersionUnknown)
	return ""
}

// Validate checks a decoded JSON object against the rules and returns the normalised
// submission and every failed code, each once, in the order of Codes. extraKnown lists
// further known keys (not custom fields); their non-null values are returned in Extra as-is.
// A JSON null counts as an absent key for every known key.
func Validate(body map[string]any, extraKnown []string, now time.Time, rules Rules) (Submission, []string) {
	v := &validation{body: body, country: rules.DefaultCountry}
	var sub Submission

	sub.Payload, sub.Extra = splitCustom(body, extraKnown)
	sub.FormID = v.formID(rules.RequireFormID)
	sub.SubmissionID = v.submissionID()
	sub.TextVersion = v.textVersion()

	primary := readFlag(body[keyPrimary])
	email := readFlag(body[keyGeneralEmail])
	phone := readFlag(body[keyGeneralPhone])
	if primary == flagInvalid {
		v.codes.add(codePrimaryInvalid)
	}
	if rules.CustomNeedsPrimary && len(sub.Payload) > 0 {
		switch primary {
		case flagAbsent:
			v.codes.add(codePrimaryMissing)
		case flagFalse:
			v.codes.add(codePrimaryDeclined)
		}
	}
	if email == flagInvalid {
		v.codes.add(codeEmailInvalid)
	}
	if phone == flagInvalid {
		v.codes.add(codePhoneInvalid)
	}
	if rules.RequireConsent && primary != flagTrue && email != flagTrue && phone != flagTrue {
		v.codes.add(codeConsentMissing)
	}

	primaryDeadline, present, ok := Deadline(body[keyPrimaryDeadlineDate], body[keyPrimaryDeadlineInterval], now)
	if !ok {
		v.codes.add(codePrimaryDeadlineInvalid)
	} else if primary == flagTrue && !present {
		v.codes.add(codePrimaryDeadlineMissing)
	}
	generalDeadline, _, ok := Deadline(body[keyGeneralDeadlineDate], body[keyGeneralDeadlineInterval], now)
	if !ok {
		v.codes.add(codeGeneralDeadlineInvalid)
	}

	sub.Contact.Email, sub.EmailKey = v.email(email == flagTrue)
	sub.Contact.PhoneNumber, sub.PhoneKey = v.phone(phone == flagTrue)
	sub.Contact.FirstName = v.text(keyFirstName, nil)
	sub.Contact.LastName = v.text(keyLastName, nil)
	sub.Contact.NamePrefix = v.text(keyNamePrefix, nil)
	sub.Address.Street = v.text(keyAddressStreet, nil)
	sub.Address.HouseNumber = v.text(keyAddressHouseNumber, nil)
	sub.Address.City = v.text(keyAddressCity, nil)
	sub.Address.Postcode = v.text(keyAddressPostcode, nil)
	proof := tenants.Consent{
		Source:    v.text(keyConsentSource, nil),
		IPAddress: v.text(keyConsentIPAddress, contact.IsIP),
		Timestamp: v.text(keyConsentTimestamp, isRFC3339),
	}

	sub.Consents = tenants.Consents{
		PrimaryPurpose:      consentFor(primary == flagTrue, primaryDeadline, proof, now),
		GeneralContactEmail: consentFor(email == flagTrue, generalDeadline, proof, now),
		GeneralContactPhone: consentFor(phone == flagTrue, generalDeadline, proof, now),
	}
	return sub, v.codes.sorted()
}

// splitCustom separates the custom fields (payload) from the extra known keys of body.
func splitCustom(body map[string]any, extraKnown []string) (payload, extra map[string]any) {
	isExtra := func(key string) bool {
		for _, k := range extraKnown {
			if k == key {
				return true
			}
		}
		return false
	}
	for key, value := range body {
		switch {
		case isStandardKey(key):
		case isExtra(key):
			if value != nil {
				if extra == nil {
					extra = map[string]any{}
				}
				extra[key] = value
			}
		default:
			if payload == nil {
				payload = map[string]any{}
			}
			payload[key] = value
		}
	}
	return payload, extra
}

// formID returns the trimmed form id. A non-string or over-long id can name no form.
func (v *validation) formID(required bool) string {
	raw := v.body[keyFormID]
	if raw == nil {
		if required {
			v.codes.add(codeFormIDMissing)
		}
		return ""
	}
	s, ok := raw.(string)
	if !ok {
		v.codes.add(codeFormIDUnknown)
		return ""
	}
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		if required {
			v.codes.add(codeFormIDMissing)
		}
		return ""
	case utf8.RuneCountInString(s) > maxIDLength:
		v.codes.add(codeFormIDUnknown)
		return ""
	}
	return s
}

// submissionID returns the submission id, "" when absent or invalid.
func (v *validation) submissionID() string {
	raw := v.body[keySubmissionID]
	if raw == nil {
		return ""
	}
	s, ok := raw.(string)
	if !ok || !validSubmissionID(s) {
		v.codes.add(codeSubmissionIDInvalid)
		return ""
	}
	return s
}

// contactValue reads email or phone_number: "" when absent, null or blank; ok=false when the
// value is not a string.
func (v *validation) contactValue(key string) (s string, ok bool) {
	switch raw := v.body[key].(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(raw), true
	}
	return "", false
}

// email returns the trimmed address and its match key; granted makes it required.
func (v *validation) email(granted bool) (*string, string) {
	s, ok := v.contactValue(keyEmail)
	if ok && s == "" {
		if granted {
			v.codes.add(codeEmailMissing)
		}
		return nil, ""
	}
	key, valid := contact.NormaliseEmail(s)
	if !ok || !valid {
		v.codes.add(codeEmailInvalid)
		return nil, ""
	}
	return &s, key
}

// phone returns the E.164 number (stored and match key alike); granted makes it required.
func (v *validation) phone(granted bool) (*string, string) {
	s, ok := v.contactValue(keyPhoneNumber)
	if ok && s == "" {
		if granted {
			v.codes.add(codePhoneMissing)
		}
		return nil, ""
	}
	e164, valid := contact.NormalisePhone(s, v.country)
	if !ok || !valid {
		v.codes.add(codePhoneInvalid)
		return nil, ""
	}
	return &e164, e164
}

// text reads a free-text known field, adding "<key>_invalid" when it fails readText or check.
func (v *validation) text(key string, check func(string) bool) *string {
	s, ok := readText(v.body[key])
	if ok && s != nil && check != nil {
		ok = check(*s)
	}
	if !ok {
		v.codes.add(key + "_invalid")
		return nil
	}
	return s
}

// isRFC3339 reports whether s is an RFC 3339 date-time (consent_timestamp).
func isRFC3339(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// consentFor builds one consent: not_granted, or granted now with its deadline and a copy of the proof.
func consentFor(granted bool, deadline *time.Time, proof tenants.Consent, now time.Time) tenants.Consent {
	if !granted {
		return tenants.Consent{Status: tenants.StatusNotGranted}
	}
	return tenants.Consent{
		Status:    tenants.StatusGranted,
		GrantedAt: &now,
		Deadline:  clonePtr(deadline),
		Source:    clonePtr(proof.Source),
		IPAddress: clonePtr(proof.IPAddress),
		Timestamp: clonePtr(proof.Timestamp),
	}
}
