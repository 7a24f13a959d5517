package intake

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/consent"
)

// FuzzParseRecord: whatever JSON object arrives, every kind's rules answer without panicking,
// either with a draft that makes a record or with violations in one of the two shapes: the
// submission rules' codes, each once and in the order of docs/API.md §3.7, or one own field.
func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{`{}`, `{"form_id":"f","email":"a@example.org","consent_to_general_contact_email":true}`,
		`{"phone_number":"+4915112345678","notes":1}`, `{"canvasser_id":"c","visited_at":"2024-04-09T17:30:00Z","x":[1,{"e":"b@example.org"}]}`,
		`{"submission_id":"a b","consent_to_primary_purpose":"yes","document_ref":null}`,
		`{"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d","custom":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var body map[string]any
		if json.Unmarshal(b, &body) != nil || body == nil {
			return
		}
		for _, kind := range tenants.Kinds() {
			d, vs := ParseRecord(kind, body, now, "")
			if d.Kind != kind {
				t.Fatalf("%s: draft of kind %s", kind, d.Kind)
			}
			if len(vs) == 0 {
				rec := d.Record("t")
				if !strings.HasPrefix(rec.ID, "t:"+string(kind)+":") || rec.PublicID == "" {
					t.Fatalf("%s: record ids %q %q", kind, rec.ID, rec.PublicID)
				}
				checkDraftIDs(t, kind, d, rec)
				continue
			}
			codes := RuleCodes(kind, vs)
			if codes == nil {
				if len(vs) != 1 || vs[0].Code == "" || vs[0].Message == "" {
					t.Fatalf("%s: own violations %v", kind, vs)
				}
				continue
			}
			if !slices.IsSortedFunc(codes, consent.CompareCodes) || len(slices.Compact(slices.Clone(codes))) != len(codes) {
				t.Fatalf("%s: codes %v", kind, codes)
			}
		}
	})
}

// checkDraftIDs fails unless the identifiers the draft keeps (d.IDs, which its match keys are
// made from) are those anonymise.Identifiers finds in the record it stores: intake takes the
// phone number validation normalised as it is (anonymise.IdentifiersOfValidated).
func checkDraftIDs(t *testing.T, kind tenants.Kind, d Draft, rec tenants.Record) {
	t.Helper()
	want := anonymise.Identifiers(rec, d.Country)
	if d.IDs == nil || !reflect.DeepEqual(*d.IDs, want) {
		t.Fatalf("%s: the draft's identifiers %+v, the record's %+v", kind, d.IDs, want)
	}
}

// TestDraftIdentifiers: however a phone number is written (international, 00, national with
// the tenant's country, separators), the identifiers a draft keeps are the stored record's.
func TestDraftIdentifiers(t *testing.T) {
	for _, phone := range []string{"+49 151 12345678", "0049 (151) 123-456-78", "0151 12345678", "+44 07700 900123", "+1 (415) 555-0132"} {
		for _, kind := range tenants.Kinds() {
			body := map[string]any{"form_id": "f", "email": "Jane.Doe@Example.ORG", "phone_number": phone, "consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
				"consent_to_general_contact_phone": true, "consent_to_general_contact_email": true,
				"canvasser_id": "c", "visited_at": "2024-04-09T17:30:00Z", "referrer": "+49 30 1234567", "friend": "ann@example.org"}
			d, vs := ParseRecord(kind, body, now, "DE")
			if len(vs) > 0 {
				national := !strings.HasPrefix(phone, "+") && !strings.HasPrefix(phone, "00")
				if kind == tenants.KindFormSubmission && national && len(vs) == 1 && vs[0].Code == "consent_to_general_contact_phone_invalid" {
					continue // form submissions take international numbers only
				}
				t.Fatalf("%s %q: %v", kind, phone, vs)
			}
			checkDraftIDs(t, kind, d, d.Record("t"))
		}
	}
}
