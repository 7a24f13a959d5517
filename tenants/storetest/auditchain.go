package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var auditChainTests = map[string]func(t *testing.T, open Open){
	"one chain per tenant":              testChainPerTenant,
	"concurrent appends never fork":     testChainConcurrent,
	"a repeated id takes no place":      testChainRepeat,
	"verifications are kept":            testChainVerifications,
	"an import continues the chains":    testChainImport,
	"a verified end must stay the same": testChainEnd,
}

// chain returns the tenant's chained entries in order.
func chain(t *testing.T, s tenants.Stores, tenantID string) []tenants.AuditEntry {
	t.Helper()
	var out []tenants.AuditEntry
	must(t, s.AuditChains.EachChained(ctx, tenantID, func(e tenants.AuditEntry) error {
		out = append(out, e)
		return nil
	}))
	return out
}

func verify(t *testing.T, s tenants.Stores, only string) tenants.ChainReport {
	t.Helper()
	rep, err := tenants.VerifyChains(ctx, s.AuditChains, only, t0)
	must(t, err)
	return rep
}

func entry(tenant string, i int) tenants.AuditEntry {
	return tenants.AuditEntry{Time: t0.Add(sec(i)), TenantID: tenant, Actor: "key:1", Action: tenants.ActionSubmissionAccepted,
		RecordIDs: []string{fmt.Sprint("r", i)}, Counts: map[string]int{"n": i}}
}

func testChainPerTenant(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Audit.Append(ctx, entry("a", 1), entry("b", 1), entry("a", 2)))
	must(t, s.Audit.Append(ctx, entry("a", 3)))
	a := chain(t, s, "a")
	if len(a) != 3 || a[0].Chain != 1 || a[0].Prev != "" || a[1].Prev != a[0].Hash || a[2].Chain != 3 {
		t.Fatalf("chain of a = %+v", a)
	}
	for _, e := range a {
		if e.Hash != tenants.ChainHash(e) {
			t.Fatalf("entry %s: hash %s, content hashes to %s", e.ID, e.Hash, tenants.ChainHash(e))
		}
	}
	if b := chain(t, s, "b"); len(b) != 1 || b[0].Chain != 1 || b[0].Prev != "" {
		t.Fatalf("chain of b = %+v", b)
	}
	listed, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Limit: 1})
	must(t, err)
	if len(listed) != 1 || listed[0].Hash != a[2].Hash {
		t.Fatalf("the listed entry carries hash %q, want %q", listed[0].Hash, a[2].Hash)
	}
	if rep := verify(t, s, ""); rep != (tenants.ChainReport{Tenants: 2, Entries: 4, OK: true}) {
		t.Fatalf("verify = %+v", rep)
	}
	if rep := verify(t, s, "b"); rep != (tenants.ChainReport{Tenants: 1, Entries: 1, OK: true}) {
		t.Fatalf("verify b = %+v", rep)
	}
}

func testChainConcurrent(t *testing.T, open Open) {
	s := open(t)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if err := s.Audit.Append(ctx, entry("a", i), entry("a", 100+i)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			r := record("a", tenants.KindFormSubmission, fmt.Sprint("c", i), i)
			if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if rep := verify(t, s, "a"); rep != (tenants.ChainReport{Tenants: 1, Entries: 120, OK: true}) {
		t.Fatalf("verify = %+v", rep)
	}
}

func testChainRepeat(t *testing.T, open Open) {
	s := open(t)
	e := entry("a", 1)
	e.ID = "job-1"
	must(t, s.Audit.Append(ctx, e))
	must(t, s.Audit.Append(ctx, e, entry("a", 2)))
	r := record("a", tenants.KindFormSubmission, "s1", 1)
	ingest(t, s, r)
	if stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)}}); err != nil || stored {
		t.Fatalf("repeat = %v, %v", stored, err)
	}
	if rep := verify(t, s, "a"); rep != (tenants.ChainReport{Tenants: 1, Entries: 3, OK: true}) {
		t.Fatalf("verify = %+v", rep)
	}
}

func testChainVerifications(t *testing.T, open Open) {
	s := open(t)
	if _, err := s.AuditChains.LastVerification(ctx, "a"); !errors.Is(err, tenants.ErrNotFound) {
		t.Fatalf("no verification yet: %v, want ErrNotFound", err)
	}
	must(t, s.Audit.Append(ctx, entry("a", 1), entry("a", 2)))
	verify(t, s, "")
	v, err := s.AuditChains.LastVerification(ctx, "a")
	must(t, err)
	last := chain(t, s, "a")[1]
	if !v.OK || v.Entries != 2 || !v.VerifiedAt.Equal(t0) || !v.UpTo.Equal(last.Time) || v.LastID != last.ID || v.Head.Hash != last.Hash {
		t.Fatalf("verification = %+v", v)
	}
	all, err := s.AuditChains.Verifications(ctx)
	must(t, err)
	if len(all) != 1 || all[0].TenantID != "a" {
		t.Fatalf("verifications = %+v", all)
	}
}

func testChainImport(t *testing.T, open Open) {
	from := open(t)
	must(t, from.Audit.Append(ctx, entry("a", 1), entry("a", 2)))
	var items []tenants.Item
	must(t, from.Transfer.Export(ctx, func(it tenants.Item) error {
		items = append(items, it)
		return nil
	}))
	to := open(t)
	_, err := to.Transfer.Import(ctx, items)
	must(t, err)
	must(t, to.Audit.Append(ctx, entry("a", 3)))
	if rep := verify(t, to, "a"); rep != (tenants.ChainReport{Tenants: 1, Entries: 3, OK: true}) {
		t.Fatalf("verify after import = %+v", rep)
	}
}

// testChainEnd: a chain that no longer reaches the head a verification saw is broken, even
// when what is left is a valid chain.
func testChainEnd(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Audit.Append(ctx, entry("a", 1)))
	v := tenants.ChainVerification{TenantID: "a", VerifiedAt: t0, Entries: 5, Head: tenants.ChainHead{Chain: 5, Hash: "gone"}, LastID: "e5", OK: true}
	must(t, s.AuditChains.SaveVerification(ctx, v))
	if rep := verify(t, s, "a"); rep.OK || rep.BrokenID != "e5" {
		t.Fatalf("verify = %+v, want broken at e5", rep)
	}
	v, err := s.AuditChains.LastVerification(ctx, "a")
	must(t, err)
	if v.OK || v.Head.Chain != 5 {
		t.Fatalf("kept verification = %+v, want broken, last good head 5", v)
	}
	// The break stays reported, by every later verification, until an operator acknowledges it.
	must(t, s.Audit.Append(ctx, entry("a", 2)))
	for range 2 {
		if rep := verify(t, s, ""); rep.OK || rep.BrokenID != "e5" {
			t.Fatalf("a later verify = %+v, want still broken at e5", rep)
		}
	}
	if _, err := tenants.AcknowledgeBreak(ctx, s.AuditChains, s.Audit, "cli", "a", "e4", "looked", t0); !errors.Is(err, tenants.ErrNotBroken) {
		t.Fatalf("acknowledging an entry not reported = %v, want ErrNotBroken", err)
	}
	rep, err := tenants.AcknowledgeBreak(ctx, s.AuditChains, s.Audit, "cli", "a", "e5", "restored from backup, ticket 42", t0)
	if err != nil || !rep.OK {
		t.Fatalf("acknowledge = %+v, %v; want the chain verified", rep, err)
	}
	acks, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionAuditAcknowledged})
	if err != nil || len(acks) != 1 || acks[0].Actor != "cli" || acks[0].Detail != "restored from backup, ticket 42" {
		t.Fatalf("acknowledgments in the audit log = %+v, %v", acks, err)
	}
	must(t, s.Audit.Append(ctx, entry("a", 3)))
	if rep := verify(t, s, "a"); !rep.OK || rep.Entries != 4 {
		t.Fatalf("verify after the acknowledgment = %+v, want ok over 4 entries", rep)
	}
}
