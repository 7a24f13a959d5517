package intake

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// codes lists the codes of vs.
func codes(vs []tenants.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Code)
	}
	return out
}

// TestCanvassingRules: the canvassing rules of docs/API.md §6.2 — consents optional and checked
// when given, the submission rules' codes all at once, then the visit's own fields one at a time.
func TestCanvassingRules(t *testing.T) {
	long := strings.Repeat("x", 1001)
	for _, c := range []struct {
		name  string
		body  map[string]any
		codes []string
		field string
	}{
		{"a bare visit", map[string]any{}, nil, ""},
		{"every own field", map[string]any{"canvasser_id": "cv-9", "visited_at": "2024-04-09T17:30:00Z", "outcome": "supportive",
			"notes": strings.Repeat("n", 10000)}, nil, ""},
		{"custom fields need no consent", map[string]any{"district": "north"}, nil, ""},
		{"canvasser_id not a string", map[string]any{"canvasser_id": 9.0}, []string{"canvasser_id_invalid"}, "canvasser_id"},
		{"outcome too long", map[string]any{"outcome": long}, []string{"outcome_invalid"}, "outcome"},
		{"notes over 10,000", map[string]any{"notes": strings.Repeat("n", 10001)}, []string{"notes_invalid"}, "notes"},
		{"visited_at not RFC 3339", map[string]any{"visited_at": "2024-04-09"}, []string{"visited_at_invalid"}, "visited_at"},
		{"visited_at not a string", map[string]any{"visited_at": true}, []string{"visited_at_invalid"}, "visited_at"},
		{"null own fields are absent", map[string]any{"canvasser_id": nil, "visited_at": nil}, nil, ""},
		{"first own field wins", map[string]any{"canvasser_id": 1.0, "visited_at": "x"}, []string{"canvasser_id_invalid"}, "canvasser_id"},
		{"granted primary needs a deadline", map[string]any{"consent_to_primary_purpose": true},
			[]string{"consent_to_primary_purpose_deadline_missing"}, "consent_to_primary_purpose_deadline"},
		{"granted e-mail consent needs email", map[string]any{"consent_to_general_contact_email": true},
			[]string{"consent_to_general_contact_email_missing"}, "consent_to_general_contact_email"},
		{"rules before own fields", map[string]any{"consent_to_general_contact_phone": "yes", "canvasser_id": 1.0, "email": "nope"},
			[]string{"consent_to_general_contact_phone_invalid", "consent_to_general_contact_email_invalid"}, "consent_to_general_contact_phone"},
		{"no form needed", map[string]any{"form_id": ""}, nil, ""},
		{"bad submission id", map[string]any{"submission_id": "a b"}, []string{"submission_id_invalid"}, "submission_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, vs := ParseRecord(tenants.KindCanvassing, c.body, now, "")
			if got := codes(vs); !slices.Equal(got, c.codes) {
				t.Fatalf("codes %v, want %v", got, c.codes)
			}
			if len(vs) > 0 && vs[0].Field != c.field {
				t.Errorf("field %q, want %q", vs[0].Field, c.field)
			}
			if d.Kind != tenants.KindCanvassing || !d.CreatedAt.Equal(now) {
				t.Errorf("draft %+v", d)
			}
		})
	}
}

// TestCanvassingDraft: a visit keeps its own fields apart from its custom fields and contact.
func TestCanvassingDraft(t *testing.T) {
	d, vs := ParseRecord(tenants.KindCanvassing, map[string]any{"canvasser_id": "cv-9", "notes": "hi", "first_name": " Door ",
		"address_street": "Elm Road", "submission_id": "visit-1", "team": "north"}, now, "")
	if vs != nil {
		t.Fatal(vs)
	}
	if d.SubmissionID != "visit-1" || *d.Contact.FirstName != "Door" || *d.Address.Street != "Elm Road" ||
		d.Fields["canvasser_id"] != "cv-9" || d.Fields["notes"] != "hi" || len(d.Fields) != 2 ||
		d.Payload["team"] != "north" || len(d.Payload) != 1 {
		t.Errorf("draft %+v", d)
	}
	if d.Consents.PrimaryPurpose.Status != tenants.StatusNotGranted {
		t.Errorf("consents %+v", d.Consents)
	}
	rec := d.Record("t1")
	if rec.ID != tenants.RecordID("t1", tenants.KindCanvassing, "visit-1") || rec.PublicID != "visit-1" || rec.TenantID != "t1" {
		t.Errorf("record ids %q %q", rec.ID, rec.PublicID)
	}
}
