// Package storetest is the store contract suite: one set of table tests that every
// implementation of the domain's repositories (package sqlite, package mongo) must pass.
// A store's own test calls Run with a function that opens a fresh, empty store.
package storetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Open returns a fresh, empty store, closed when the test ends.
type Open func(t *testing.T) tenants.Stores

// Run runs every contract test against the stores open returns.
func Run(t *testing.T, open Open) {
	groups := []struct {
		name  string
		tests map[string]func(t *testing.T, open Open)
	}{
		{"entities", entityTests},
		{"records", recordTests},
		{"changes", changeTests},
		{"audit", auditTests},
		{"audit chain", auditChainTests},
		{"webhook diagnostics", webhookDiagTests},
		{"transfer", transferTests},
		{"sessions", sessionTests},
		{"rights", rightsTests},
		{"outbox", outboxTests},
		{"bulk", bulkTests},
		{"trends", trendTests},
		{"consent texts", textTests},
		{"sms", smsTests},
		{"spent tokens", spentTokenTests},
		{"web forms", webFormTests},
		{"subject requests", subjectRequestTests},
	}
	// Every test opens stores of its own (a fresh file or database each) and reads no clock,
	// so they run in parallel, up to go test's -parallel; except the "concurrent ..." tests,
	// which race calls against each other inside one store and run alone, as they would
	// one after another: a store may bound how long one call waits for another (MongoDB's
	// erasure claims), and other tests' load must not push such a wait past its bound.
	var alone sync.RWMutex
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for name, test := range g.tests {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					if strings.HasPrefix(name, "concurrent ") {
						alone.Lock()
						defer alone.Unlock()
					} else {
						alone.RLock()
						defer alone.RUnlock()
					}
					test(t, open)
				})
			}
		})
	}
}

var ctx = context.Background()

// t0 is the suite's reference time, in the millisecond precision every store keeps.
var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func sec(n int) time.Duration { return time.Duration(n) * time.Second }

// record builds a form submission of tenant with id, created at t0 plus offset seconds,
// carrying the given match keys.
func record(tenant string, kind tenants.Kind, id string, offset int, keys ...string) tenants.Record {
	return tenants.Record{ID: tenants.RecordID(tenant, kind, id), TenantID: tenant, Kind: kind, PublicID: id,
		FormID: "petition", CreatedAt: t0.Add(time.Duration(offset) * time.Second), MatchKeys: keys}
}

// ingest stores recs and fails the test on an error or a repeat.
func ingest(t *testing.T, s tenants.Stores, recs ...tenants.Record) {
	t.Helper()
	for _, r := range recs {
		stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)}})
		if err != nil || !stored {
			t.Fatalf("ingest %s = %v, %v; want stored", r.ID, stored, err)
		}
	}
}

// accepted is the one audit entry of r's ingestion (r grants no consent).
func accepted(r tenants.Record) tenants.AuditEntry {
	return tenants.AuditEntry{Time: r.CreatedAt, TenantID: r.TenantID, Actor: "key:k1",
		Action: tenants.ActionRecordCreated, RecordIDs: []string{r.PublicID}}
}

// granted is a consent granted at t0 with deadline d (nil: none).
func granted(d *time.Time) tenants.Consent {
	return tenants.Consent{Status: tenants.StatusGranted, GrantedAt: ptr(t0), Deadline: d}
}

// ids lists the public ids of recs.
func ids(recs []tenants.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.PublicID
	}
	return out
}

// setOf lists the public ids of recs in order, for order-free comparison.
func setOf(recs []tenants.Record) string {
	m := map[string]bool{}
	for _, r := range recs {
		m[r.PublicID] = true
	}
	return fmt.Sprint(slices.Sorted(maps.Keys(m)))
}
