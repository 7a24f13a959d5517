package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
)

// TestRefusedRecordBodies: one rendering of the intake violations per body of docs/API.md —
// the list of §3.7 for accept-submission, the single-error bodies of §6 for the other kinds.
func TestRefusedRecordBodies(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	guests := make([]any, intake.MaxIdentifiers)
	for i := range guests {
		guests[i] = "g" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@example.org"
	}
	for _, c := range []struct {
		name string
		kind tenants.Kind
		body map[string]any
		form bool // the form is closed
		want string
	}{
		{"list", tenants.KindFormSubmission, map[string]any{"submission_id": "a b"}, false,
			`{"errors":["form_id_missing","submission_id_invalid","consent_missing"]}`},
		{"list with a closed form", tenants.KindFormSubmission, map[string]any{"form_id": "f", "consent_to_general_contact_email": true}, true,
			`{"errors":["form_id_unknown","consent_to_general_contact_email_missing"]}`},
		{"rules, single", tenants.KindDigitisation, map[string]any{}, false,
			`{"error":"ValidationError","message":"The record failed validation: form_id_missing, consent_missing.","code":"form_id_missing","details":{"errors":["form_id_missing","consent_missing"],"field":"form_id"}}`},
		{"closed form over an own field", tenants.KindDigitisation, map[string]any{"form_id": "f", "consent_to_general_contact_email": true,
			"email": "a@example.org", "digitised_by": 7.0}, true,
			`{"error":"ValidationError","message":"The record failed validation: form_id_unknown.","code":"form_id_unknown","details":{"errors":["form_id_unknown"],"field":"form_id"}}`},
		{"own field", tenants.KindCanvassing, map[string]any{"visited_at": "soon"}, false,
			`{"error":"ValidationError","message":"visited_at must be an RFC 3339 date-time.","code":"visited_at_invalid","details":{"field":"visited_at"}}`},
		{"too many identifiers under the rules", tenants.KindCanvassing, map[string]any{"email": "a@example.org", "guests": guests}, false,
			`{"error":"ValidationError","message":"The record failed validation: too_many_identifiers.","code":"too_many_identifiers","details":{"errors":["too_many_identifiers"]}}`},
		{"too many identifiers on a call", tenants.KindPhoneCallTask, map[string]any{"phone_number": "+4915112345678", "guests": guests}, false,
			`{"error":"ValidationError","message":"A record may carry at most 32 e-mail addresses and phone numbers.","code":"too_many_identifiers"}`},
		{"a call's name", tenants.KindPhoneCallTask, map[string]any{"phone_number": "+4915112345678", "first_name": 1.0}, false,
			`{"error":"ValidationError","message":"first_name must be a string of at most 1000 characters.","code":"first_name_invalid","details":{"field":"first_name"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, vs := intake.ParseRecord(c.kind, c.body, now, "")
			if c.form {
				vs = intake.FormUnknown(vs)
			}
			if len(vs) == 0 {
				t.Fatal("not refused")
			}
			b, err := json.Marshal((&refusedRecord{kind: c.kind, vs: vs}).body())
			if err != nil || string(b) != c.want {
				t.Errorf("body %s, %v\nwant %s", b, err, c.want)
			}
		})
	}
}
