package intake

import (
	"encoding/json"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

// BenchmarkParseRecord is the parse of a typical accept-submission body, with and without a
// phone number (libphonenumber reads it).
func BenchmarkParseRecord(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"email", `{"form_id":"petition-2026","email":"jane@example.org","first_name":"Jane",
		"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M",
		"consent_to_general_contact_email":true,"consent_source":"web","district_interest":"north"}`},
		{"email+phone", `{"form_id":"petition-2026","email":"jane@example.org","phone_number":"+49 151 12345678","first_name":"Jane",
		"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M",
		"consent_to_general_contact_email":true,"consent_to_general_contact_phone":true,"consent_source":"web","district_interest":"north"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var body map[string]any
			if err := json.Unmarshal([]byte(c.body), &body); err != nil {
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
		})
	}
}
