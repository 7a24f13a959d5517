package ops_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/ops"
)

// nopWriter takes every ingestion and writes nothing.
type nopWriter struct{ tenants.Writer }

func (nopWriter) Ingest(context.Context, tenants.Ingestion) (bool, error) { return true, nil }

// benchBody is a typical accept-submission body: contact, two consents with deadlines, custom fields.
var benchBody = []byte(`{"form_id":"petition-2026","email":"jane@example.org","first_name":"Jane","last_name":"Doe",
"address_city":"Berlin","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M",
"consent_to_general_contact_email":true,"consent_to_general_contact_deadline_date":"2030-12-31",
"consent_source":"web","district_interest":"north","volunteer":true}`)

// BenchmarkIntake is the in-process part of an accept-submission past the form lookup: decode,
// parse, prepare the match keys and audit entries, hand over to the writer.
func BenchmarkIntake(b *testing.B) {
	svc := &ops.Service{Writer: nopWriter{}, Hasher: tenants.NewHasher([]byte("0123456789abcdef0123456789abcdef"))}
	ctx, now := context.Background(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		var body map[string]any
		if err := json.Unmarshal(benchBody, &body); err != nil {
			b.Fatal(err)
		}
		d, vs := intake.ParseRecord(tenants.KindFormSubmission, body, now, "")
		if _, _, err := svc.IngestDraft(ctx, "t1", d, vs, "key:k1", "0123456789abcdef01234567"); err != nil {
			b.Fatal(err)
		}
	}
}
