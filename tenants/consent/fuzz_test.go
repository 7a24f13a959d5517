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
	for _, s := range []string{"30d", "3M", "3m", "1.5 h", "2 years", "P1Y2M3DT4H5M6S", "PT0.5H", "", "293y", "0d", " 1 MO ",
		".5h", "1  d", "90 Days", "5MS", "365yr", "1000W", "-1d", "+1d", "1e3d", "\u0663d"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		iv, err := ParseInterval(s)
		checkMS(t, s, iv, err, now)
		if err != nil {
			if iv != (Interval{}) {
				t.Fatalf("ParseInterval(%q) = %+v with error %v", s, iv, err)
			}
			return
		}
		if iv.sec < 0 || iv.nsec < 0 || iv.nsec >= 1e9 {
			t.Fatalf("ParseInterval(%q) = %+v, out of range", s, iv)
		}
		// Whatever parses is ASCII and survives surrounding spaces.
		if iv2, err := ParseInterval(" " + s + " "); err != nil || iv2 != iv {
			t.Fatalf("ParseInterval with spaces around %q = %+v, %v; want %+v", s, iv2, err, iv)
		}
		checkFrom(t, iv, now)
	})
}

// checkMS asserts that the parser reads what ms 2.1.3 reads, as ms reads it, except for negative
// values, M (a month, not a minute) and the additions of docs/API.md §3.5: month words and ISO 8601.
func checkMS(t *testing.T, s string, iv Interval, err error, now time.Time) {
	t.Helper()
	s = strings.TrimSpace(s)
	ms, unit, ok := msParse(s)
	switch {
	case ok && unit != "" && unit != "M" && !strings.HasPrefix(s, "-") && ms < 9e21: // below 2^63 s
		got, fits := iv.From(now)
		if err != nil || fits && !msAgrees(got, now, ms) {
			t.Fatalf("ParseInterval(%q) = %+v, %v; ms reads %v ms", s, iv, err, ms)
		}
	case err == nil && !ok && !isoOrMonths(s):
		t.Fatalf("ParseInterval(%q) = %+v; ms reads nothing", s, iv)
	}
}

// isoOrMonths reports whether s is one of the forms of docs/API.md §3.5 that ms lacks.
func isoOrMonths(s string) bool {
	if strings.HasPrefix(s, "P") || strings.HasPrefix(s, "p") {
		return true
	}
	unit := strings.TrimLeft(s, "0123456789. ")
	switch strings.ToLower(unit) {
	case "mo", "month", "months":
		return true
	}
	return unit == "M"
}

// checkFrom asserts that iv after now is now plus iv exactly, or refused past year 9999.
func checkFrom(t *testing.T, iv Interval, now time.Time) {
	t.Helper()
	got, ok := iv.From(now)
	if !ok {
		// Shorter than 365-day years from now's year to 9999, it must end within year 9999.
		if iv.sec < int64(maxYear-now.Year())*365*86400 {
			t.Fatalf("%+v.From(%v) refused", iv, now)
		}
		return
	}
	if got.Before(now) || got.Location() != time.UTC || got.Year() > maxYear {
		t.Fatalf("%+v.From(%v) = %v", iv, now, got)
	}
	if iv.sec < 1<<33 && !got.Equal(now.Add(time.Duration(iv.sec)*time.Second+time.Duration(iv.nsec))) {
		t.Fatalf("%+v.From(%v) = %v, want now + the interval", iv, now, got)
	}
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
