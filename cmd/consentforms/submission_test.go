package main

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// The submission codes of docs/API.md §3.7, form_id_unknown included.
const (
	cFormMissing      = "form_id_missing"
	cFormUnknown      = "form_id_unknown"
	cSubIDInvalid     = "submission_id_invalid"
	cConsentMissing   = "consent_missing"
	cPrimaryMissing   = "consent_to_primary_purpose_missing"
	cPrimaryInvalid   = "consent_to_primary_purpose_invalid"
	cPrimaryDeclined  = "consent_to_primary_purpose_declined"
	cPrimaryDLMissing = "consent_to_primary_purpose_deadline_missing"
	cPrimaryDLInvalid = "consent_to_primary_purpose_deadline_invalid"
	cPhoneMissing     = "consent_to_general_contact_phone_missing"
	cPhoneInvalid     = "consent_to_general_contact_phone_invalid"
	cEmailMissing     = "consent_to_general_contact_email_missing"
	cEmailInvalid     = "consent_to_general_contact_email_invalid"
	cGeneralDLInvalid = "consent_to_general_contact_deadline_invalid"
)

const acceptPath = "/api/v1/forms/accept-submission"

// validEmailSub is the smallest valid submission: general e-mail consent with an address.
var validEmailSub = map[string]any{"form_id": "petition", "consent_to_general_contact_email": true, "email": "ok@example.org"}

// validPrimarySub grants primary purpose consent with a deadline (custom fields allowed).
var validPrimarySub = map[string]any{"form_id": "petition", "consent_to_primary_purpose": true,
	"consent_to_primary_purpose_deadline_interval": "30d"}

// validPhoneSub grants general phone consent.
var validPhoneSub = map[string]any{"form_id": "petition", "consent_to_general_contact_phone": true, "phone_number": "+4915112345678"}

// TestSubmissionValidationCodes sends every rule's failure alone and in combination, wrong
// JSON types, empty, unicode and huge values, and checks the exact list of codes.
func TestSubmissionValidationCodes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	s.cli("form", "create", "--tenant", tn, "--form-id", "closed-form", "--closed")
	s.cli("form", "create", "--tenant", other, "--form-id", "other-form")
	k := s.key(tn, "submissions:write")

	codes := func(name string, body map[string]any, want ...string) apiCase {
		return apiCase{name: name, path: acceptPath, key: k, body: body, status: 400, errs: want}
	}
	ok := func(name string, body map[string]any) apiCase {
		return apiCase{name: name, path: acceptPath, key: k, body: body, status: 200, empty: true}
	}
	e, p, pr := validEmailSub, validPhoneSub, validPrimarySub
	long := func(n int) string { return strings.Repeat("a", n) }

	cases := []apiCase{
		// Successes: 200 with an empty body.
		ok("valid email consent", e),
		ok("valid phone consent", p),
		ok("valid primary consent", pr),
		ok("phone with spaces and parentheses", with(p, "phone_number", "+1 (555) 123-4567")),
		ok("submission id of 128 characters", with(e, "submission_id", long(128))),
		ok("submission id of every allowed character", with(e, "submission_id", "AZaz09._:-")),
		ok("null submission id is absent", with(e, "submission_id", nil)),
		ok("unicode names", with(e, "first_name", "Zoë", "last_name", "Łódź-山田 Ærøskøbing", "name_prefix", "Dr. med.",
			"address_city", "Zürich", "address_street", "Straße des 17. Juni")),
		ok("unicode e-mail", with(e, "email", "jörg@exämple.de")),
		ok("name of 1000 characters", with(e, "first_name", long(1000))),
		ok("empty optional strings", with(e, "first_name", "", "last_name", "", "address_city", "")),
		ok("null optional fields", with(e, "first_name", nil, "address_street", nil, "consent_to_general_contact_phone", nil)),
		ok("huge custom field", with(pr, "essay", long(512<<10))),
		ok("custom fields of every JSON type", with(pr, "n", 1.5, "b", false, "arr", []any{1, "x", nil}, "obj", map[string]any{"a": map[string]any{"b": 1}}, "null", nil)),
		ok("provenance fields are not custom", with(e, "consent_source", "web", "consent_ip_address", "192.0.2.7", "consent_timestamp", "2024-04-09T10:00:00Z")),
		ok("all three consents", with(e, "consent_to_primary_purpose", true, "consent_to_primary_purpose_deadline_date", "2099-01-01",
			"consent_to_general_contact_phone", true, "phone_number", "+4915112345678", "consent_to_general_contact_deadline_interval", "2y")),
		ok("general deadline for a consent not granted is ignored", with(pr, "consent_to_general_contact_deadline_interval", "30d")),
		ok("declined primary without custom fields", with(e, "consent_to_primary_purpose", false)),
		ok("primary deadline sent with primary not granted", with(e, "consent_to_primary_purpose_deadline_interval", "30d")),

		// form_id
		codes("form_id absent", with(e, "form_id", absent), cFormMissing),
		codes("form_id null", with(e, "form_id", nil), cFormMissing),
		codes("form_id empty", with(e, "form_id", ""), cFormMissing),
		codes("form_id blank", with(e, "form_id", "   "), cFormMissing),
		codes("form_id unknown", with(e, "form_id", "no-such-form"), cFormUnknown),
		codes("form_id of another tenant", with(e, "form_id", "other-form"), cFormUnknown),
		codes("form_id closed", with(e, "form_id", "closed-form"), cFormUnknown),
		codes("form_id in other case", with(e, "form_id", "PETITION"), cFormUnknown),
		codes("form_id number", with(e, "form_id", 42), cFormUnknown),
		codes("form_id array", with(e, "form_id", []any{"petition"}), cFormUnknown),
		codes("form_id object", with(e, "form_id", map[string]any{"id": "petition"}), cFormUnknown),
		codes("form_id boolean", with(e, "form_id", true), cFormUnknown),
		codes("form_id huge", with(e, "form_id", long(100000)), cFormUnknown),

		// submission_id
		codes("submission_id with a space", with(e, "submission_id", "has space"), cSubIDInvalid),
		codes("submission_id empty", with(e, "submission_id", ""), cSubIDInvalid),
		codes("submission_id with a slash", with(e, "submission_id", "a/b"), cSubIDInvalid),
		codes("submission_id unicode", with(e, "submission_id", "ü"), cSubIDInvalid),
		codes("submission_id of 129 characters", with(e, "submission_id", long(129)), cSubIDInvalid),
		codes("submission_id number", with(e, "submission_id", 42), cSubIDInvalid),
		codes("submission_id boolean", with(e, "submission_id", true), cSubIDInvalid),
		codes("submission_id array", with(e, "submission_id", []any{"a"}), cSubIDInvalid),
		codes("submission_id object", with(e, "submission_id", map[string]any{}), cSubIDInvalid),

		// consent_missing
		codes("no consent flag", map[string]any{"form_id": "petition", "email": "a@example.org"}, cConsentMissing),
		codes("every flag false", map[string]any{"form_id": "petition", "email": "a@example.org", "consent_to_primary_purpose": false,
			"consent_to_general_contact_email": false, "consent_to_general_contact_phone": false}, cConsentMissing),
		codes("every flag null", map[string]any{"form_id": "petition", "consent_to_primary_purpose": nil,
			"consent_to_general_contact_email": nil, "consent_to_general_contact_phone": nil}, cConsentMissing),
		codes("consents array is a custom field", map[string]any{"form_id": "petition",
			"consents": []any{map[string]any{"type": "general_contact", "granted": true, "deadline": "30d"}}}, cConsentMissing, cPrimaryMissing),

		// consent_to_primary_purpose
		codes("custom field without primary", with(e, "favourite_colour", "teal"), cPrimaryMissing),
		codes("custom null field without primary", with(e, "favourite_colour", nil), cPrimaryMissing),
		codes("address object without primary", with(e, "address", map[string]any{"street": "Main St 1", "city": "X", "state": "Y", "zip": "1", "country": "DE"}), cPrimaryMissing),
		codes("flat phone without primary", with(e, "phone", "+4915112345678"), cPrimaryMissing),
		codes("flat street city state zip without primary", with(e, "street", "Main St", "city", "X", "state", "Y", "zip", "12345"), cPrimaryMissing),
		codes("custom field with primary declined", with(e, "favourite_colour", "teal", "consent_to_primary_purpose", false), cPrimaryDeclined),
		codes("primary as a string", with(e, "consent_to_primary_purpose", "true"), cPrimaryInvalid),
		codes("primary as a number", with(e, "consent_to_primary_purpose", 1), cPrimaryInvalid),
		codes("primary as an array", with(e, "consent_to_primary_purpose", []any{true}), cPrimaryInvalid),
		codes("primary as an object", with(e, "consent_to_primary_purpose", map[string]any{}), cPrimaryInvalid),
		codes("primary invalid with custom fields", with(e, "consent_to_primary_purpose", "yes", "x", 1), cPrimaryInvalid),
		codes("primary invalid alone", map[string]any{"form_id": "petition", "consent_to_primary_purpose": "yes"}, cConsentMissing, cPrimaryInvalid),

		// primary purpose deadline
		codes("primary without deadline", with(pr, "consent_to_primary_purpose_deadline_interval", absent), cPrimaryDLMissing),
		codes("primary with null deadlines", with(pr, "consent_to_primary_purpose_deadline_interval", nil, "consent_to_primary_purpose_deadline_date", nil), cPrimaryDLMissing),
		codes("interval words", with(pr, "consent_to_primary_purpose_deadline_interval", "soon"), cPrimaryDLInvalid),
		codes("interval empty", with(pr, "consent_to_primary_purpose_deadline_interval", ""), cPrimaryDLInvalid),
		codes("interval without unit", with(pr, "consent_to_primary_purpose_deadline_interval", "30"), cPrimaryDLInvalid),
		codes("interval negative", with(pr, "consent_to_primary_purpose_deadline_interval", "-5d"), cPrimaryDLInvalid),
		codes("interval zero", with(pr, "consent_to_primary_purpose_deadline_interval", "0d"), cPrimaryDLInvalid),
		codes("interval unknown unit", with(pr, "consent_to_primary_purpose_deadline_interval", "3x"), cPrimaryDLInvalid),
		codes("interval number", with(pr, "consent_to_primary_purpose_deadline_interval", 30), cPrimaryDLInvalid),
		codes("interval array", with(pr, "consent_to_primary_purpose_deadline_interval", []any{"30d"}), cPrimaryDLInvalid),
		codes("interval beyond year 9999", with(pr, "consent_to_primary_purpose_deadline_interval", "100000y"), cPrimaryDLInvalid),
		codes("date words", with(pr, "consent_to_primary_purpose_deadline_date", "tomorrow"), cPrimaryDLInvalid),
		codes("date in the past", with(pr, "consent_to_primary_purpose_deadline_interval", absent, "consent_to_primary_purpose_deadline_date", "2020-01-01"), cPrimaryDLInvalid),
		codes("date-time in the past", with(pr, "consent_to_primary_purpose_deadline_interval", absent, "consent_to_primary_purpose_deadline_date", "2020-01-01T00:00:00Z"), cPrimaryDLInvalid),
		codes("date that does not exist", with(pr, "consent_to_primary_purpose_deadline_date", "2099-02-30"), cPrimaryDLInvalid),
		codes("date month 13", with(pr, "consent_to_primary_purpose_deadline_date", "2099-13-01"), cPrimaryDLInvalid),
		codes("date empty", with(pr, "consent_to_primary_purpose_deadline_date", ""), cPrimaryDLInvalid),
		codes("date number", with(pr, "consent_to_primary_purpose_deadline_date", 20991231), cPrimaryDLInvalid),
		codes("date object", with(pr, "consent_to_primary_purpose_deadline_date", map[string]any{"y": 2099}), cPrimaryDLInvalid),
		codes("valid interval with past date", with(pr, "consent_to_primary_purpose_deadline_date", "2001-01-01"), cPrimaryDLInvalid),
		codes("invalid deadline for a primary not granted", with(e, "consent_to_primary_purpose_deadline_interval", "soon"), cPrimaryDLInvalid),

		// general contact phone
		codes("phone consent without number", with(p, "phone_number", absent), cPhoneMissing),
		codes("phone consent with empty number", with(p, "phone_number", ""), cPhoneMissing),
		codes("phone consent with blank number", with(p, "phone_number", "   "), cPhoneMissing),
		codes("phone consent with null number", with(p, "phone_number", nil), cPhoneMissing),
		codes("phone too short", with(p, "phone_number", "+123456"), cPhoneInvalid),
		codes("phone too long", with(p, "phone_number", "+1234567890123456"), cPhoneInvalid),
		codes("phone without plus or 00", with(p, "phone_number", "4915112345678"), cPhoneInvalid),
		codes("phone with an extension", with(p, "phone_number", "+44 20 7946 0958 ext. 12"), cPhoneInvalid),
		codes("phone national", with(p, "phone_number", "015112345678"), cPhoneInvalid),
		codes("phone country code 0", with(p, "phone_number", "+0123456789"), cPhoneInvalid),
		codes("phone with letters", with(p, "phone_number", "+49 151 abc"), cPhoneInvalid),
		codes("phone number type", with(p, "phone_number", 4915112345678), cPhoneInvalid),
		codes("phone array", with(p, "phone_number", []any{"+4915112345678"}), cPhoneInvalid),
		codes("phone flag as a string", with(e, "consent_to_general_contact_phone", "true"), cPhoneInvalid),
		codes("phone flag as a number", with(e, "consent_to_general_contact_phone", 1), cPhoneInvalid),

		// general contact e-mail
		codes("email consent without address", with(e, "email", absent), cEmailMissing),
		codes("email consent with empty address", with(e, "email", ""), cEmailMissing),
		codes("email consent with blank address", with(e, "email", "  "), cEmailMissing),
		codes("email consent with null address", with(e, "email", nil), cEmailMissing),
		codes("email without at", with(e, "email", "not-an-email"), cEmailInvalid),
		codes("email with display name", with(e, "email", "Jane <jane@example.org>"), cEmailInvalid),
		codes("email without dot in domain", with(e, "email", "a@localhost"), cEmailInvalid),
		codes("email with two ats", with(e, "email", "a@@example.org"), cEmailInvalid),
		codes("email without local part", with(e, "email", "@example.org"), cEmailInvalid),
		codes("email of 255 characters", with(e, "email", long(243)+"@example.org"), cEmailInvalid),
		codes("email number", with(e, "email", 42), cEmailInvalid),
		codes("email array", with(e, "email", []any{"a@example.org"}), cEmailInvalid),
		codes("email flag as a string", with(p, "consent_to_general_contact_email", "yes"), cEmailInvalid),

		// general contact deadline
		codes("general interval words", with(e, "consent_to_general_contact_deadline_interval", "forever"), cGeneralDLInvalid),
		codes("general interval empty", with(e, "consent_to_general_contact_deadline_interval", ""), cGeneralDLInvalid),
		codes("general interval number", with(e, "consent_to_general_contact_deadline_interval", 90), cGeneralDLInvalid),
		codes("general date in the past", with(e, "consent_to_general_contact_deadline_date", "1999-12-31"), cGeneralDLInvalid),
		codes("general date boolean", with(e, "consent_to_general_contact_deadline_date", true), cGeneralDLInvalid),
		codes("invalid general deadline with general not granted", with(pr, "consent_to_general_contact_deadline_date", "yesterday"), cGeneralDLInvalid),

		// Combinations: every code that applies, each once.
		codes("empty object", map[string]any{}, cFormMissing, cConsentMissing),
		codes("custom field only", map[string]any{"x": 1}, cFormMissing, cConsentMissing, cPrimaryMissing),
		codes("closed form, declined primary with custom fields", map[string]any{"form_id": "closed-form", "x": 1,
			"consent_to_primary_purpose": false}, cFormUnknown, cConsentMissing, cPrimaryDeclined),
		codes("unknown form, no deadline, bad phone, no email", map[string]any{"form_id": "nope", "x": 1,
			"consent_to_primary_purpose": true, "consent_to_general_contact_phone": true, "phone_number": "123",
			"consent_to_general_contact_email": true}, cFormUnknown, cPrimaryDLMissing, cPhoneInvalid, cEmailMissing),
		codes("seven failures at once", map[string]any{"submission_id": "bad id", "favourite": "x",
			"consent_to_primary_purpose": "yes", "consent_to_primary_purpose_deadline_interval": "soon",
			"consent_to_general_contact_email": true, "email": "bad", "consent_to_general_contact_phone": true,
			"consent_to_general_contact_deadline_date": "2001-01-01"},
			cFormMissing, cSubIDInvalid, cPrimaryInvalid, cPrimaryDLInvalid, cPhoneMissing, cEmailInvalid, cGeneralDLInvalid),
		codes("other tenant's form, bad id, missing primary, missing phone, bad email", map[string]any{"form_id": "other-form",
			"submission_id": 7, "street": "Main St", "consent_to_general_contact_phone": true,
			"consent_to_general_contact_email": true, "email": "x@y"},
			cFormUnknown, cSubIDInvalid, cPrimaryMissing, cPhoneMissing, cEmailInvalid),
		codes("invalid flags everywhere", map[string]any{"form_id": "petition", "consent_to_primary_purpose": "1",
			"consent_to_general_contact_email": 1, "consent_to_general_contact_phone": []any{}},
			cConsentMissing, cPrimaryInvalid, cPhoneInvalid, cEmailInvalid),
		codes("declined with invalid general deadline", map[string]any{"form_id": "petition", "consent_to_primary_purpose": false,
			"consent_to_general_contact_email": false, "x": 1, "consent_to_general_contact_deadline_interval": "x"},
			cConsentMissing, cPrimaryDeclined, cGeneralDLInvalid),
		codes("both deadlines invalid with both channels missing", map[string]any{"form_id": "petition",
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_date": "2000-01-01",
			"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true,
			"consent_to_general_contact_deadline_interval": "-1d"},
			cPrimaryDLInvalid, cPhoneMissing, cEmailMissing, cGeneralDLInvalid),

		// The other known fields are strings; the per-field codes of docs/API.md §3.2 rule 12.
		codes("first_name number", with(e, "first_name", 42), "first_name_invalid"),
		codes("last_name object", with(e, "last_name", map[string]any{"x": 1}), "last_name_invalid"),
		codes("name_prefix boolean", with(e, "name_prefix", true), "name_prefix_invalid"),
		codes("address_street array", with(e, "address_street", []any{"x"}), "address_street_invalid"),
		codes("address_postcode number", with(e, "address_postcode", 12345), "address_postcode_invalid"),
		codes("first_name of 1001 characters", with(e, "first_name", long(1001)), "first_name_invalid"),
		codes("consent_ip_address not an address", with(e, "consent_ip_address", "localhost"), "consent_ip_address_invalid"),
		codes("consent_timestamp not a time", with(e, "consent_timestamp", "yesterday"), "consent_timestamp_invalid"),
		codes("known field types and rules together", with(e, "form_id", absent, "first_name", 1, "email", 2),
			cFormMissing, cEmailInvalid, "first_name_invalid"),

		// Bodies that are not objects.
		{name: "array body", path: acceptPath, key: k, body: `[{"form_id":"petition"}]`, status: 400, kind: "ValidationError", code: "invalid_json"},
		{name: "string body", path: acceptPath, key: k, body: `"petition"`, status: 400, kind: "ValidationError", code: "invalid_json"},
		{name: "empty body", path: acceptPath, key: k, body: ``, status: 400, kind: "ValidationError", code: "invalid_json"},
		{name: "trailing garbage", path: acceptPath, key: k, body: `{"form_id":"petition"} x`, status: 400, kind: "ValidationError", code: "invalid_json"},
	}
	runCases(t, s, cases)
}

// TestSubmissionReadShape checks GET /api/v1/forms/submissions/{id} against docs/API.md §7.1:
// every key present, nulls for what was not sent, RFC 3339 UTC times, phone in E.164.
func TestSubmissionReadShape(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	w, r := s.key(tn, "submissions:write"), s.key(tn, "submissions:read")
	ro := s.key(other, "all")
	before := time.Now().UTC().Truncate(time.Second)
	submit(t, s, w, map[string]any{
		"form_id": "petition", "submission_id": "shape-full", "email": "Jane.Doe@Example.org", "phone_number": "+44 20 7946 0958",
		"first_name": " Jane ", "last_name": "Doe", "name_prefix": "Dr.", "address_street": "Baker Street",
		"address_house_number": "221b", "address_city": "London", "address_postcode": "NW1 6XE",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_date": "2099-12-31",
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true,
		"consent_to_general_contact_deadline_interval": "6M",
		"consent_source": "web", "consent_ip_address": "192.0.2.7", "consent_timestamp": "2024-04-09T10:00:00Z",
		"favourite_colour": "teal", "tags": []any{"a", "b"}, "nested": map[string]any{"k": 1, "deeper": []any{true, nil}},
	})
	submit(t, s, w, map[string]any{"form_id": "petition", "consent_to_general_contact_email": true, "email": "min@example.org"})
	after := time.Now().UTC()

	full := getSubmission(t, s, r, "shape-full")
	// withdrawUrl: both records read here have general contact granted (docs/API.md §13).
	topKeys := []string{"address", "anonymisedAt", "consents", "contact", "createdAt", "formId", "payload", "preferencesUrl", "submissionId", "withdrawUrl"}
	consentKeys := []string{"deadline", "grantedAt", "revokedAt", "status"}
	checkKeys := func(t *testing.T, sub map[string]any) {
		t.Helper()
		for path, want := range map[string][]string{
			"":                             topKeys,
			"contact":                      {"email", "firstName", "lastName", "namePrefix", "phoneNumber"},
			"address":                      {"city", "houseNumber", "postcode", "street"},
			"consents":                     {"generalContactEmail", "generalContactPhone", "primaryPurpose"},
			"consents.primaryPurpose":      consentKeys,
			"consents.generalContactEmail": consentKeys,
			"consents.generalContactPhone": consentKeys,
		} {
			if got := keysOf(sub, path); !equalStrings(got, want) {
				t.Errorf("keys of %q = %v, want %v", path, got, want)
			}
		}
	}
	checkKeys(t, full)
	created := timeAt(t, full, "createdAt")
	if created.Before(before) || created.After(after) {
		t.Errorf("createdAt %v not within [%v, %v]", created, before, after)
	}
	granted := timeAt(t, full, "consents.primaryPurpose.grantedAt")
	if d := granted.Sub(created); d < -time.Second || d > time.Second {
		t.Errorf("grantedAt %v far from createdAt %v", granted, created)
	}
	generalDeadline := timeAt(t, full, "consents.generalContactEmail.deadline")
	if d := generalDeadline.Sub(granted) - 180*24*time.Hour; d < -time.Second || d > time.Second {
		t.Errorf("6M deadline %v is not granted+180 days (%v)", generalDeadline, granted)
	}
	jsonEqual(t, "view", full, map[string]any{
		"submissionId": "shape-full", "formId": "petition", "createdAt": str(full, "createdAt"),
		"contact": map[string]any{"email": "Jane.Doe@Example.org", "phoneNumber": "+442079460958", "firstName": "Jane",
			"lastName": "Doe", "namePrefix": "Dr."},
		"address": map[string]any{"street": "Baker Street", "houseNumber": "221b", "city": "London", "postcode": "NW1 6XE"},
		"consents": map[string]any{
			"primaryPurpose": map[string]any{"status": "granted", "deadline": "2099-12-31T23:59:59Z",
				"grantedAt": str(full, "consents.primaryPurpose.grantedAt"), "revokedAt": nil},
			"generalContactEmail": map[string]any{"status": "granted", "deadline": generalDeadline.Format(time.RFC3339),
				"grantedAt": str(full, "consents.primaryPurpose.grantedAt"), "revokedAt": nil},
			"generalContactPhone": map[string]any{"status": "granted", "deadline": generalDeadline.Format(time.RFC3339),
				"grantedAt": str(full, "consents.primaryPurpose.grantedAt"), "revokedAt": nil},
		},
		"payload":      map[string]any{"favourite_colour": "teal", "tags": []any{"a", "b"}, "nested": map[string]any{"k": 1, "deeper": []any{true, nil}}},
		"anonymisedAt": nil,
		"withdrawUrl":  str(full, "withdrawUrl"), "preferencesUrl": str(full, "preferencesUrl"),
	})

	// The minimal submission has no id of its own: the consent read finds it.
	list := consentsOf(t, s, r, "email", "MIN@example.org")
	subs, _ := list["submissions"].([]any)
	if len(subs) != 1 {
		t.Fatalf("consents of min@example.org: %v", list)
	}
	id := str(subs[0], "submissionId")
	if id == "" {
		t.Fatalf("no submissionId in %v", subs[0])
	}
	minimal := getSubmission(t, s, r, id)
	checkKeys(t, minimal)
	notGranted := map[string]any{"status": "not_granted", "deadline": nil, "grantedAt": nil, "revokedAt": nil}
	jsonEqual(t, "minimal view", minimal, map[string]any{
		"submissionId": id, "formId": "petition", "createdAt": str(minimal, "createdAt"),
		"contact": map[string]any{"email": "min@example.org", "phoneNumber": nil, "firstName": nil, "lastName": nil, "namePrefix": nil},
		"address": map[string]any{"street": nil, "houseNumber": nil, "city": nil, "postcode": nil},
		"consents": map[string]any{
			"primaryPurpose":      notGranted,
			"generalContactEmail": map[string]any{"status": "granted", "deadline": nil, "grantedAt": str(minimal, "consents.generalContactEmail.grantedAt"), "revokedAt": nil},
			"generalContactPhone": notGranted,
		},
		"payload": map[string]any{}, "anonymisedAt": nil, "withdrawUrl": str(minimal, "withdrawUrl"),
		"preferencesUrl": str(minimal, "preferencesUrl"),
	})
	if !strings.HasPrefix(str(minimal, "preferencesUrl"), s.LinkBase+"/p/") {
		t.Errorf("preferencesUrl %q", str(minimal, "preferencesUrl"))
	}
	if !strings.HasPrefix(str(minimal, "withdrawUrl"), s.LinkBase+"/w/") {
		t.Errorf("withdrawUrl %q", str(minimal, "withdrawUrl"))
	}

	runCases(t, s, []apiCase{
		{name: "unknown id", method: "GET", path: "/api/v1/forms/submissions/no-such-id", key: r, status: 404, kind: "NotFound"},
		{name: "id with characters no id has", method: "GET", path: "/api/v1/forms/submissions/a%20b%2Fc", key: r, status: 404, kind: "NotFound"},
		{name: "another tenant's id", method: "GET", path: "/api/v1/forms/submissions/shape-full", key: ro, status: 404, kind: "NotFound"},
		{name: "write-only key", method: "GET", path: "/api/v1/forms/submissions/shape-full", key: w, status: 403, kind: "Forbidden"},
		{name: "no key", method: "GET", path: "/api/v1/forms/submissions/shape-full", status: 401, kind: "Unauthorized"},
		{name: "read key cannot submit", path: acceptPath, key: r, body: validEmailSub, status: 403, kind: "Forbidden"},
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSubmissionAlternateShapes stores the alternate shapes of docs/API.md §3.1 as custom
// fields, requiring primary purpose consent for them.
func TestSubmissionAlternateShapes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "submissions:write,submissions:read")
	shapes := map[string]map[string]any{
		"alt-consents": {"consents": []any{map[string]any{"type": "general_contact", "granted": true, "deadline": "30d"},
			map[string]any{"type": "general_contact", "granted": false, "deadline": "2030-01-01T00:00:00Z"}}},
		"alt-address": {"address": map[string]any{"street": "Main St 1", "city": "Springfield", "state": "IL", "zip": "62701", "country": "US"}},
		"alt-flat":    {"phone": "+15551234567", "street": "Main St 1", "city": "Springfield", "state": "IL", "zip": "62701"},
	}
	for id, custom := range shapes {
		t.Run(id, func(t *testing.T) {
			base := with(validEmailSub, "submission_id", id)
			for k2, v := range custom {
				base[k2] = v
			}
			assertCodes(t, call(t, s, "POST", acceptPath, k, base), cPrimaryMissing)
			assertCodes(t, call(t, s, "POST", acceptPath, k, with(base, "consent_to_primary_purpose", false)), cPrimaryDeclined)
			submit(t, s, k, with(base, "consent_to_primary_purpose", true, "consent_to_primary_purpose_deadline_interval", "90d"))
			sub := getSubmission(t, s, k, id)
			jsonEqual(t, "payload", at(sub, "payload"), custom)
			// The flat phone is a custom field: the contact phone stays empty, no phone consent.
			if at(sub, "contact.phoneNumber") != nil || at(sub, "address.street") != nil || at(sub, "address.city") != nil {
				t.Errorf("alternate shape leaked into the structured fields: %v %v", at(sub, "contact"), at(sub, "address"))
			}
			if status(sub, "generalContactPhone") != "not_granted" || status(sub, "primaryPurpose") != "granted" {
				t.Errorf("consents %v", at(sub, "consents"))
			}
		})
	}
}

// TestSubmissionDeadlines checks the effective deadline through GET: both given → the earlier,
// date-only = end of that day UTC, no offset = UTC, every interval unit.
func TestSubmissionDeadlines(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "submissions:write,submissions:read")
	const day = 24 * time.Hour
	soon := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)

	type row struct {
		name     string
		date     any // primary purpose deadline date (nil = absent)
		interval any // primary purpose deadline interval (nil = absent)
		after    time.Duration
		exact    string // expected deadline when fixed
	}
	rows := []row{
		{name: "30d", interval: "30d", after: 30 * day},
		{name: "90d", interval: "90d", after: 90 * day},
		{name: "180d", interval: "180d", after: 180 * day},
		{name: "3M is 90 days", interval: "3M", after: 90 * day},
		{name: "6M is 180 days", interval: "6M", after: 180 * day},
		{name: "1y is 365.25 days", interval: "1y", after: 365*day + 6*time.Hour},
		{name: "2y", interval: "2y", after: 2 * (365*day + 6*time.Hour)},
		{name: "5y", interval: "5y", after: 5 * (365*day + 6*time.Hour)},
		{name: "m is minutes", interval: "90m", after: 90 * time.Minute},
		{name: "h", interval: "12h", after: 12 * time.Hour},
		{name: "w", interval: "2w", after: 14 * day},
		{name: "s", interval: "3600s", after: time.Hour},
		{name: "decimal", interval: "1.5d", after: 36 * time.Hour},
		{name: "long unit with space", interval: "30 days", after: 30 * day},
		{name: "long unit months", interval: "2 months", after: 60 * day},
		{name: "long unit year", interval: "1 year", after: 365*day + 6*time.Hour},
		{name: "ISO 8601 duration", interval: "P30D", after: 30 * day},
		{name: "date only is end of day UTC", date: "2099-12-31", exact: "2099-12-31T23:59:59Z"},
		{name: "date-time without offset is UTC", date: "2099-06-01T12:00:00", exact: "2099-06-01T12:00:00Z"},
		{name: "date-time with offset", date: "2099-06-01T12:00:00+02:00", exact: "2099-06-01T10:00:00Z"},
		{name: "date-time Z", date: "2099-06-01T12:30:45Z", exact: "2099-06-01T12:30:45Z"},
		{name: "both: interval earlier", date: "2099-01-01T00:00:00Z", interval: "30d", after: 30 * day},
		{name: "both: date earlier", date: soon.Format(time.RFC3339), interval: "1y", exact: soon.Format(time.RFC3339)},
		{name: "both: date-only earlier than 5y", date: time.Now().UTC().AddDate(0, 0, 3).Format("2006-01-02"), interval: "5y",
			exact: time.Now().UTC().AddDate(0, 0, 3).Format("2006-01-02") + "T23:59:59Z"},
	}
	for i, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			id := "deadline-" + string(rune('a'+i))
			body := with(validEmailSub, "submission_id", id, "consent_to_primary_purpose", true)
			if r.date != nil {
				body["consent_to_primary_purpose_deadline_date"] = r.date
			}
			if r.interval != nil {
				body["consent_to_primary_purpose_deadline_interval"] = r.interval
			}
			// The general contact deadline follows the same rules and applies to both channels.
			if r.date != nil {
				body["consent_to_general_contact_deadline_date"] = r.date
			}
			if r.interval != nil {
				body["consent_to_general_contact_deadline_interval"] = r.interval
			}
			body["consent_to_general_contact_phone"] = true
			body["phone_number"] = phoneOf(i)
			submit(t, s, k, body)
			sub := getSubmission(t, s, k, id)
			granted := timeAt(t, sub, "consents.primaryPurpose.grantedAt")
			for _, c := range []string{"primaryPurpose", "generalContactEmail", "generalContactPhone"} {
				got := timeAt(t, sub, "consents."+c+".deadline")
				if r.exact != "" {
					if s := got.Format(time.RFC3339); s != r.exact {
						t.Errorf("%s deadline %s, want %s", c, s, r.exact)
					}
					continue
				}
				// Both times are truncated to the second in the view.
				if d := got.Sub(granted) - r.after; math.Abs(float64(d)) > float64(time.Second) {
					t.Errorf("%s deadline %v is granted %v + %v, want + %v", c, got, granted, got.Sub(granted), r.after)
				}
			}
		})
	}
}

// TestSubmissionIdempotency: a repeated submission_id answers 200 and changes nothing, also
// when 50 identical requests race; distinct ids racing are all stored.
func TestSubmissionIdempotency(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "submissions:write,submissions:read")

	first := map[string]any{"form_id": "petition", "submission_id": "dup-1", "email": "first@example.org",
		"consent_to_general_contact_email": true, "first_name": "First"}
	submit(t, s, k, first)
	want := getSubmission(t, s, k, "dup-1")
	second := map[string]any{"form_id": "petition", "submission_id": "dup-1", "email": "second@example.org",
		"consent_to_general_contact_email": true, "first_name": "Second", "phone_number": "+4915112345678",
		"consent_to_general_contact_phone": true, "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "1d", "custom": "x"}
	submit(t, s, k, second)
	jsonEqual(t, "submission after a repeat", getSubmission(t, s, k, "dup-1"), want)
	if got := consentsOf(t, s, k, "email", "second@example.org"); len(at(got, "submissions").([]any)) != 0 {
		t.Errorf("the repeat's e-mail finds a submission: %v", got)
	}
	if got := consentsOf(t, s, k, "phone", "+4915112345678"); len(at(got, "submissions").([]any)) != 0 {
		t.Errorf("the repeat's phone finds a submission: %v", got)
	}
	// A retry of a stored submission answers 200 even when it would fail validation now, and
	// still changes nothing.
	if r := call(t, s, "POST", acceptPath, k, with(first, "email", "bad", "form_id", "nope")); r.Status != 200 || len(r.Body) != 0 {
		t.Errorf("invalid repeat: %d %s", r.Status, r.Body)
	}
	jsonEqual(t, "submission after an invalid repeat", getSubmission(t, s, k, "dup-1"), want)
	// An invalid body with a new id is refused.
	assertCodes(t, call(t, s, "POST", acceptPath, k, with(first, "email", "bad", "submission_id", "dup-2")), cEmailInvalid)

	race := func(t *testing.T, n int, body func(i int) map[string]any) {
		var wg sync.WaitGroup
		results := make([]response, n)
		errs := make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = send(s, "POST", acceptPath, k, body(i))
			}()
		}
		wg.Wait()
		for i := range results {
			if errs[i] != nil || results[i].Status != 200 || len(results[i].Body) != 0 {
				t.Errorf("request %d: %v %d %s", i, errs[i], results[i].Status, results[i].Body)
			}
		}
	}
	t.Run("50 identical concurrent requests store one submission", func(t *testing.T) {
		race(t, 50, func(int) map[string]any {
			return map[string]any{"form_id": "petition", "submission_id": "race-1", "email": "race@example.org",
				"consent_to_general_contact_email": true}
		})
		got := consentsOf(t, s, k, "email", "race@example.org")
		subs := at(got, "submissions").([]any)
		if len(subs) != 1 || str(subs[0], "submissionId") != "race-1" {
			t.Errorf("consents after the race: %v", got)
		}
	})
	t.Run("50 distinct concurrent requests store fifty", func(t *testing.T) {
		race(t, 50, func(i int) map[string]any {
			return map[string]any{"form_id": "petition", "submission_id": "many-" + phoneOf(i)[1:], "email": "many@example.org",
				"consent_to_general_contact_email": true}
		})
		got := consentsOf(t, s, k, "email", "many@example.org")
		if subs := at(got, "submissions").([]any); len(subs) != 50 {
			t.Errorf("%d submissions after 50 distinct requests", len(subs))
		}
	})
}
