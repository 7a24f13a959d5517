package intake

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
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
		for _, kind := range tenants.Kinds {
			d, vs := ParseRecord(kind, body, now, "")
			if d.Kind != kind {
				t.Fatalf("%s: draft of kind %s", kind, d.Kind)
			}
			if len(vs) == 0 {
				if rec := d.Record("t"); !strings.HasPrefix(rec.ID, "t:"+string(kind)+":") || rec.PublicID == "" {
					t.Fatalf("%s: record ids %q %q", kind, rec.ID, rec.PublicID)
				}
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
