package sqlite_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
)

// benchRecord is a record of the size and shape the HTTP benchmark sends (~1 KB).
func benchRecord(n int64) tenants.Ingestion {
	id := fmt.Sprintf("r%d", n)
	email, phone := fmt.Sprintf("bench%d@example.org", n), fmt.Sprintf("+4915%09d", n)
	now := time.Now()
	deadline := now.Add(365 * 24 * time.Hour)
	g := tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &now, Deadline: &deadline, Source: ptr("bench landing page"),
		IPAddress: ptr("192.0.2.10"), Timestamp: ptr("2026-11-21T10:00:00Z")}
	rec := tenants.Record{ID: tenants.RecordID("t1", tenants.KindFormSubmission, id), TenantID: "t1", Kind: tenants.KindFormSubmission,
		PublicID: id, FormID: "petition", CreatedAt: now,
		Contact:  tenants.Contact{Email: &email, PhoneNumber: &phone, FirstName: ptr("Alexandra"), LastName: ptr("Benchmark-Person"), NamePrefix: ptr("Dr")},
		Address:  tenants.Address{Street: ptr("Long Street Name"), HouseNumber: ptr("12a"), City: ptr("Berlin"), Postcode: ptr("10115")},
		Consents: tenants.Consents{PrimaryPurpose: g, GeneralContactEmail: g, GeneralContactPhone: g},
		Payload:  map[string]any{"utm_campaign": "winter-appeal-2026", "utm_source": "newsletter", "interest": "climate and forests", "comment": string(make([]byte, 180))},
		// Keyed hashes are spread uniformly, as HMACs are: every insert lands at a random place.
		MatchKeys: []string{hashOf("e", n), hashOf("p", n)},
	}
	audit := []tenants.AuditEntry{
		{Time: now, TenantID: "t1", Actor: "key:k1", Action: tenants.ActionSubmissionAccepted, RecordIDs: []string{id}, Detail: "formSubmission form=petition", RequestID: "0123456789abcdef01234567"},
		{Time: now, TenantID: "t1", Actor: "key:k1", Action: tenants.ActionConsentGranted, RecordIDs: []string{id}, Detail: "primaryPurpose,generalContactEmail,generalContactPhone", RequestID: "0123456789abcdef01234567"},
	}
	return tenants.Ingestion{Record: rec, Audit: audit}
}

func ptr[T any](v T) *T { return &v }

func hashOf(kind string, n int64) string {
	h := sha256.Sum256([]byte(fmt.Sprint(kind, n)))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// BenchmarkIngest: concurrent ingestions through the batching writer, as 64 HTTP connections
// would hand them over.
func BenchmarkIngest(b *testing.B) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Writer.Ingest(context.Background(), benchRecord(n.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
