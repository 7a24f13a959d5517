package ops_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// nopWriter takes every ingestion and writes nothing.
type nopWriter struct{ tenants.Writer }

func (nopWriter) Ingest(context.Context, tenants.Ingestion) (bool, error) { return true, nil }

// noRecords holds no record: each submission is new (the repeat check reads past it).
type noRecords struct{ tenants.RecordStore }

func (noRecords) Get(context.Context, string, tenants.Kind, string) (tenants.Record, error) {
	return tenants.Record{}, tenants.ErrNotFound
}

// oneForm is the one open form the benchmark's submissions name.
type oneForm struct{}

func (oneForm) Get(_ context.Context, tenantID, formID string) (tenants.Form, error) {
	return tenants.Form{TenantID: tenantID, FormID: formID, Open: true}, nil
}

// benchBody is a typical accept-submission body: contact, two consents with deadlines, custom fields.
var benchBody = []byte(`{"form_id":"petition-2026","email":"jane@example.org","first_name":"Jane","last_name":"Doe",
"address_city":"Berlin","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M",
"consent_to_general_contact_email":true,"consent_to_general_contact_deadline_date":"2030-12-31",
"consent_source":"web","district_interest":"north","volunteer":true}`)

// BenchmarkIntake is the in-process part of an accept-submission: decode, the intake case
// (parse, the form, texts, double opt-in), prepare the match keys and audit entries, hand over
// to the writer.
func BenchmarkIntake(b *testing.B) {
	svc := ops.New(ops.Config{Writer: nopWriter{}, Forms: oneForm{}, Records: noRecords{}, Now: time.Now, Hasher: tenants.NewHasher([]byte("0123456789abcdef0123456789abcdef"))}).Intake
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var body map[string]any
		if err := json.Unmarshal(benchBody, &body); err != nil {
			b.Fatal(err)
		}
		sub := ops.Submission{TenantID: "t1", Kind: tenants.KindFormSubmission, Body: body, Way: ops.WaySecretKey,
			Actor: "key:k1", RequestID: "0123456789abcdef01234567"}
		if _, err := svc.Submit(ctx, sub); err != nil {
			b.Fatal(err)
		}
	}
}
