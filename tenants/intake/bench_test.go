package intake

import (
	"encoding/json"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

// BenchmarkParseRecord is the parse of a typical accept-submission body.
func BenchmarkParseRecord(b *testing.B) {
	var body map[string]any
	if err := json.Unmarshal([]byte(`{"form_id":"petition-2026","email":"jane@example.org","first_name":"Jane",
		"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M",
		"consent_to_general_contact_email":true,"consent_source":"web","district_interest":"north"}`), &body); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d, vs := ParseRecord(tenants.KindFormSubmission, body, now, "")
		if vs != nil {
			b.Fatal(vs)
		}
		_ = d.Record("t1")
	}
}
