package mongo

import (
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// t0 is the tests' reference time, in the millisecond precision the store keeps.
var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// clock is a settable clock for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// person is a record of tenant with an e-mail address and a granted consent, carrying keys.
func person(tenant string, kind tenants.Kind, id string, keys ...string) tenants.Record {
	email := id + "@example.org"
	return tenants.Record{ID: tenants.RecordID(tenant, kind, id), TenantID: tenant, Kind: kind, PublicID: id,
		FormID: "petition", CreatedAt: t0, MatchKeys: keys, Contact: tenants.Contact{Email: &email},
		Consents: tenants.Consents{
			PrimaryPurpose:      tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &t0},
			GeneralContactEmail: tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &t0},
		}}
}

// ingest stores recs, each with one audit entry, and fails the test unless each is new.
func ingest(t *testing.T, s *Store, recs ...tenants.Record) {
	t.Helper()
	for _, r := range recs {
		stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{{
			Time: r.CreatedAt, TenantID: r.TenantID, Actor: "key:k1", Action: tenants.ActionSubmissionAccepted}}})
		if err != nil || !stored {
			t.Fatalf("ingest %s = %v, %v; want stored", r.ID, stored, err)
		}
	}
}
