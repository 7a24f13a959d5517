package intake

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

// TestPhoneCallRules: the phone-call task rules of docs/API.md §6.3, one violation at a time.
func TestPhoneCallRules(t *testing.T) {
	phone := "+4915112345678"
	with := func(kv ...any) map[string]any {
		m := map[string]any{"phone_number": phone}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name string
		body map[string]any
		code string
	}{
		{"a bare call", with(), ""},
		{"every field", with("email", "a@example.org", "first_name", "A", "last_name", "B", "name_prefix", "Dr", "campaign_id", "c",
			"caller_id", "k", "status", "done", "outcome", "ok", "notes", strings.Repeat("n", 10000),
			"scheduled_at", "2024-04-09T10:00:00Z", "called_at", "2024-04-09T10:05:00+02:00"), ""},
		{"phone absent", map[string]any{}, "phone_number_missing"},
		{"phone null", map[string]any{"phone_number": nil}, "phone_number_missing"},
		{"phone empty", map[string]any{"phone_number": ""}, "phone_number_missing"},
		{"phone not E.164", map[string]any{"phone_number": "0151 1234"}, "phone_number_invalid"},
		{"phone not a string", map[string]any{"phone_number": 4915112345678.0}, "phone_number_invalid"},
		{"phone with separators", map[string]any{"phone_number": "+49 (151) 123-45678"}, ""},
		{"email invalid", with("email", "nope"), "email_invalid"},
		{"email not a string", with("email", 1.0), "email_invalid"},
		{"email empty is absent", with("email", ""), ""},
		{"name not a string", with("last_name", 1.0), "last_name_invalid"},
		{"name too long", with("first_name", strings.Repeat("x", 1001)), "first_name_invalid"},
		{"campaign_id not a string", with("campaign_id", false), "campaign_id_invalid"},
		{"status too long", with("status", strings.Repeat("x", 1001)), "status_invalid"},
		{"notes over 10,000", with("notes", strings.Repeat("n", 10001)), "notes_invalid"},
		{"scheduled_at a date", with("scheduled_at", "2024-04-09"), "scheduled_at_invalid"},
		{"called_at not a string", with("called_at", 1.0), "called_at_invalid"},
		{"phone before the rest", map[string]any{"email": "nope", "notes": 1.0}, "phone_number_missing"},
		{"names before own fields", with("name_prefix", 1.0, "caller_id", 1.0), "name_prefix_invalid"},
		{"strings before times", with("outcome", 1.0, "called_at", "x"), "outcome_invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, vs := ParseRecord(tenants.KindPhoneCallTask, c.body, now, "")
			want := []string(nil)
			if c.code != "" {
				want = []string{c.code}
			}
			if got := codes(vs); !slices.Equal(got, want) {
				t.Fatalf("codes %v, want %v", got, want)
			}
			if len(vs) == 1 && (vs[0].Field != strings.TrimSuffix(strings.TrimSuffix(c.code, "_missing"), "_invalid") || vs[0].Message == "") {
				t.Errorf("violation %+v", vs[0])
			}
			if RuleCodes(tenants.KindPhoneCallTask, vs) != nil {
				t.Error("a phone-call task follows no submission rules")
			}
		})
	}
}

// TestPhoneCallDraft: contact data, own fields and custom fields land apart; no idempotency key.
func TestPhoneCallDraft(t *testing.T) {
	d, vs := ParseRecord(tenants.KindPhoneCallTask, map[string]any{"phone_number": "+49 151 12345678", "email": "a@example.org",
		"first_name": "Caller", "caller_id": "c-3", "called_at": nil, "team": "north", "submission_id": "x"}, now, "")
	if vs != nil {
		t.Fatal(vs)
	}
	if *d.Contact.PhoneNumber != "+4915112345678" || *d.Contact.Email != "a@example.org" || *d.Contact.FirstName != "Caller" ||
		d.Contact.LastName != nil {
		t.Errorf("contact %+v", d.Contact)
	}
	if len(d.Fields) != 1 || d.Fields["caller_id"] != "c-3" || len(d.Payload) != 2 || d.Payload["team"] != "north" || d.Payload["submission_id"] != "x" {
		t.Errorf("fields %v payload %v", d.Fields, d.Payload)
	}
	a, b := d.Record("t1"), d.Record("t1")
	if d.SubmissionID != "" || a.PublicID == "" || a.PublicID == b.PublicID || a.ID != tenants.RecordID("t1", tenants.KindPhoneCallTask, a.PublicID) {
		t.Errorf("ids %q %q %q", a.PublicID, b.PublicID, a.ID)
	}
}

// TestIdentifierLimit: every kind refuses a record of more than MaxIdentifiers identifiers; the
// kinds under the submission rules list it with their other codes.
func TestIdentifierLimit(t *testing.T) {
	guests := func(n int) []any {
		var out []any
		for i := range n {
			out = append(out, fmt.Sprintf("g%d@example.org", i))
		}
		return out
	}
	_, vs := ParseRecord(tenants.KindPhoneCallTask, map[string]any{"phone_number": "+4915112345678", "guests": guests(MaxIdentifiers - 1)}, now, "")
	if vs != nil {
		t.Errorf("at the limit: %v", vs)
	}
	_, vs = ParseRecord(tenants.KindPhoneCallTask, map[string]any{"phone_number": "+4915112345678", "guests": guests(MaxIdentifiers)}, now, "")
	if len(vs) != 1 || vs[0] != tooMany || RuleCodes(tenants.KindPhoneCallTask, vs) != nil {
		t.Errorf("over the limit: %v", vs)
	}
	_, vs = ParseRecord(tenants.KindCanvassing, map[string]any{"canvasser_id": 1.0, "consent_to_primary_purpose": true, "guests": guests(MaxIdentifiers + 1)}, now, "")
	want := []string{"consent_to_primary_purpose_deadline_missing", "too_many_identifiers"}
	if got := RuleCodes(tenants.KindCanvassing, vs); !slices.Equal(got, want) || vs[1].Field != "" {
		t.Errorf("canvassing: %v, want %v", vs, want)
	}
}
