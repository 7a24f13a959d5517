package consent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

func FuzzParseInterval(f *testing.F) {
	for _, s := range []string{"30d", "3M", "3m", "1.5 h", "2 years", "P1Y2M3DT4H5M6S", "PT0.5H", "", "293y", "0d", " 1 MO "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseInterval(s)
		if err != nil {
			if d != 0 {
				t.Fatalf("ParseInterval(%q) = %v with error %v", s, d, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseInterval(%q) = %v, negative", s, d)
		}
		// Whatever parses is ASCII and survives surrounding spaces.
		if d2, err := ParseInterval(" " + s + " "); err != nil || d2 != d {
			t.Fatalf("ParseInterval with spaces around %q = %v, %v; want %v", s, d2, err, d)
		}
	})
}

func FuzzParseDeadlineDate(f *testing.F) {
	for _, s := range []string{"2027-01-31", "2027-01-31T10:00:00Z", "2027-01-31 10:00", "2027-01-31T10:00:00.5+02:00", "9999-12-31T23:00:00-01:00", "2027-02-29", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseDeadlineDate(s)
		if err != nil {
			if !tm.IsZero() {
				t.Fatalf("ParseDeadlineDate(%q) = %v with error %v", s, tm, err)
			}
			return
		}
		if tm.Location() != time.UTC || tm.Year() < 0 || tm.Year() > maxYear {
			t.Fatalf("ParseDeadlineDate(%q) = %v", s, tm)
		}
		// Anything accepted can be written back as RFC 3339 and read again.
		out, err := tm.MarshalJSON()
		if err != nil {
			t.Fatalf("ParseDeadlineDate(%q) = %v, not marshalable: %v", s, tm, err)
		}
		var back time.Time
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(tm) {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func FuzzValidate(f *testing.F) {
	seeds := []string{
		`{}`,
		with(""),
		with(`"petition":"x","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d"`),
		`{"form_id":"f","consent_to_general_contact_phone":true,"phone_number":"+4915112345678","consent_to_general_contact_deadline_date":"2099-01-01"}`,
		`{"form_id":1,"submission_id":"a b","consent_to_primary_purpose":"x","email":"nope","first_name":[]}`,
		`{"consents":[{"type":"general_contact","granted":true,"deadline":"P1Y"}],"address":{"zip":"1"}}`,
		`{"form_id":"f","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":"2020-01-01","consent_to_primary_purpose_deadline_interval":"1d"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil || body == nil {
			return
		}
		for _, rules := range []Rules{FormRules, OptionalRules, {RequireConsent: true}} {
			sub, codes := Validate(body, []string{"document_ref"}, now, rules)
			checkCodes(t, codes)
			checkSubmission(t, sub, now)
			if rules == FormRules && len(codes) == 0 {
				checkAccepted(t, sub, now)
			}
		}
	})
}

// checkCodes asserts that codes are known, unique and in canonical order.
func checkCodes(t *testing.T, codes []string) {
	t.Helper()
	for _, c := range codes {
		known := slices.Contains(Codes, c)
		if !known && strings.HasSuffix(c, "_invalid") {
			known = isStandardKey(strings.TrimSuffix(c, "_invalid"))
		}
		if !known {
			t.Fatalf("unknown code %q", c)
		}
	}
	if len(slices.Compact(slices.Clone(codes))) != len(codes) {
		t.Fatalf("duplicate codes %v", codes)
	}
	sorted := slices.Clone(codes)
	SortCodes(sorted)
	if !slices.Equal(sorted, codes) {
		t.Fatalf("codes not sorted: %v", codes)
	}
}

// checkSubmission asserts the shape of any returned submission.
func checkSubmission(t *testing.T, sub Submission, now time.Time) {
	t.Helper()
	for _, c := range []tenants.Consent{sub.Consents.PrimaryPurpose, sub.Consents.GeneralContactEmail, sub.Consents.GeneralContactPhone} {
		switch c.Status {
		case tenants.StatusGranted:
			if c.GrantedAt == nil || !c.GrantedAt.Equal(now) {
				t.Fatalf("granted consent without grant time: %+v", c)
			}
		case tenants.StatusNotGranted:
			if c.GrantedAt != nil || c.Deadline != nil || c.Source != nil || c.IPAddress != nil || c.Timestamp != nil {
				t.Fatalf("consent not granted carries data: %+v", c)
			}
		default:
			t.Fatalf("status %q", c.Status)
		}
	}
	if sub.Payload != nil && len(sub.Payload) == 0 || sub.Extra != nil && len(sub.Extra) == 0 {
		t.Fatalf("empty non-nil map: %v %v", sub.Payload, sub.Extra)
	}
	if _, ok := sub.Payload["document_ref"]; ok {
		t.Fatal("extra key in payload")
	}
	if (sub.EmailKey == "") != (sub.Contact.Email == nil) || (sub.PhoneKey == "") != (sub.Contact.PhoneNumber == nil) {
		t.Fatalf("match keys and contact disagree: %+v", sub)
	}
	if sub.Contact.PhoneNumber != nil && *sub.Contact.PhoneNumber != sub.PhoneKey {
		t.Fatalf("phone %q, key %q", *sub.Contact.PhoneNumber, sub.PhoneKey)
	}
	if sub.EmailKey != "" && sub.EmailKey != strings.ToLower(strings.TrimSpace(*sub.Contact.Email)) {
		t.Fatalf("email %q, key %q", *sub.Contact.Email, sub.EmailKey)
	}
	for _, p := range []*string{sub.Contact.Email, sub.Contact.FirstName, sub.Contact.LastName, sub.Contact.NamePrefix,
		sub.Address.Street, sub.Address.HouseNumber, sub.Address.City, sub.Address.Postcode} {
		if p != nil && (*p == "" || strings.TrimSpace(*p) != *p) {
			t.Fatalf("untrimmed or empty field %q", *p)
		}
	}
}

// checkAccepted asserts what an accepted FormRules submission guarantees.
func checkAccepted(t *testing.T, sub Submission, now time.Time) {
	t.Helper()
	if sub.FormID == "" {
		t.Fatal("accepted without form id")
	}
	granted := 0
	for _, c := range []tenants.Consent{sub.Consents.PrimaryPurpose, sub.Consents.GeneralContactEmail, sub.Consents.GeneralContactPhone} {
		if c.Status != tenants.StatusGranted {
			continue
		}
		granted++
		if c.Deadline != nil && !c.Deadline.After(now) {
			t.Fatalf("granted consent with deadline %v not after %v", c.Deadline, now)
		}
		if c.StatusAt(now) != tenants.StatusGranted {
			t.Fatalf("granted consent reads %q", c.StatusAt(now))
		}
	}
	if granted == 0 {
		t.Fatal("accepted without a granted consent")
	}
	if sub.Consents.PrimaryPurpose.Status == tenants.StatusGranted && sub.Consents.PrimaryPurpose.Deadline == nil {
		t.Fatal("primary consent granted without deadline")
	}
	if len(sub.Payload) > 0 && sub.Consents.PrimaryPurpose.Status != tenants.StatusGranted {
		t.Fatal("custom fields accepted without primary consent")
	}
	if sub.Consents.GeneralContactEmail.Status == tenants.StatusGranted && sub.EmailKey == "" {
		t.Fatal("e-mail consent without e-mail")
	}
	if sub.Consents.GeneralContactPhone.Status == tenants.StatusGranted && sub.PhoneKey == "" {
		t.Fatal("phone consent without phone")
	}
}
