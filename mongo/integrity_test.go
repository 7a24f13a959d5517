package mongo

import (
	"context"
	"errors"
	"fmt"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestChainRepeatInOneBatch: a submission and its repeat (same record id) written in one
// batch take one place in the chain, not two with the second left empty.
func TestChainRepeatInOneBatch(t *testing.T) {
	s := openStore(t, server.URI(), freshDB(t))
	r := person("a", tenants.KindFormSubmission, "r1", "k1")
	var jobs []*ingestJob
	for range 2 {
		d, err := toDoc(r)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, &ingestJob{doc: d, in: tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{{
			Time: r.CreatedAt, TenantID: r.TenantID, Actor: "key:k1", Action: tenants.ActionSubmissionAccepted}}}})
	}
	s.Writer.write(jobs)
	if jobs[0].err != nil || jobs[1].err != nil || jobs[0].stored == jobs[1].stored {
		t.Fatalf("jobs = (%v, %v), (%v, %v); want one stored, one a repeat", jobs[0].stored, jobs[0].err, jobs[1].stored, jobs[1].err)
	}
	verifyOK(t, s, "a", 1)
	ingest(t, s, person("a", tenants.KindFormSubmission, "r2", "k2"))
	verifyOK(t, s, "a", 2)
}

// TestChainSameEntriesTwoInstances: two instances appending the same entries (derived ids, as
// the expiry job's) at once store each once and leave no empty place.
func TestChainSameEntriesTwoInstances(t *testing.T) {
	db := freshDB(t)
	a, b := openStore(t, server.URI(), db), openStore(t, server.URI(), db)
	var wg sync.WaitGroup
	var mu sync.Mutex
	added := 0
	for i := range 20 {
		for _, s := range []*Store{a, b, a, b} {
			wg.Go(func() {
				e := chainEntry("t", i)
				e.ID = fmt.Sprintf("expired:r%d", i)
				n, err := s.Audit.appendNew(ctx, e)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				added += n
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if added != 20 {
		t.Errorf("appends report %d entries added, want 20", added)
	}
	verifyOK(t, b, "t", 20)
}

// expiryRun is the expiry job's run at now: one consent.expired entry per consent, under the
// job's derived id.
func expiryRun(now time.Time, limit int) tenants.ExpiryRun {
	return tenants.ExpiryRun{Now: now, Limit: limit, Audit: func(rec tenants.Record, names []string) []tenants.AuditEntry {
		out := make([]tenants.AuditEntry, len(names))
		for i, name := range names {
			out[i] = tenants.AuditEntry{ID: "expired:" + rec.ID + ":" + name, Time: now, TenantID: rec.TenantID,
				Actor: tenants.ActorSystem, Action: tenants.ActionConsentExpired, RecordIDs: []string{rec.PublicID}, Detail: name}
		}
		return out
	}}
}

// TestExpireTwoInstances: the expiry job running on two instances at once records each
// expiry once: one consent.expired entry, counted by one instance, and the chain verifies.
func TestExpireTwoInstances(t *testing.T) {
	db := freshDB(t)
	a, b := openStore(t, server.URI(), db), openStore(t, server.URI(), db)
	soon := t0.Add(time.Minute)
	const n = 30
	for i := range n {
		r := person("a", tenants.KindFormSubmission, fmt.Sprintf("r%02d", i), fmt.Sprintf("k%d", i))
		r.Consents.PrimaryPurpose.Deadline = &soon
		ingest(t, a, r)
	}
	now := t0.Add(time.Hour)
	run := expiryRun(now, 7)
	counts := make([]int, 4)
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			var err error
			if counts[i], err = s.Writer.Expire(ctx, run); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if sum := counts[0] + counts[1] + counts[2] + counts[3]; sum != n {
		t.Errorf("the runs counted %v = %d expiries, want %d", counts, sum, n)
	}
	list, err := a.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil || len(list) != n {
		t.Errorf("consent.expired entries = %d, %v; want %d", len(list), err, n)
	}
	verifyOK(t, b, "a", 2*n)
}

// failOnce fails step the first time it is reached, with err.
func failOnce(step string, err error) func(string) error {
	var once sync.Once
	return func(s string) error {
		var out error
		if s == step {
			once.Do(func() { out = err })
		}
		return out
	}
}

// TestIngestFailureStoresNothing: an ingestion whose events or audit entry cannot be written
// answers an error and leaves no record, so the client's repeat without a submission id (a
// new record) stores the person once; a lost answer that a repeat can complete is repeated
// inside the write and the ingestion succeeds.
func TestIngestFailureStoresNothing(t *testing.T) {
	broken := &tenants.StoreError{Op: "append audit", Err: fmt.Errorf("injected")}
	for _, step := range []string{"events", "audit"} {
		t.Run(step, func(t *testing.T) {
			s := openStore(t, server.URI(), freshDB(t))
			if err := s.Outbox.InsertEndpoint(ctx, tenants.Endpoint{ID: "ep", TenantID: "a", URL: "https://example.org/hook", Events: []string{"submission.created"}, CreatedAt: t0}); err != nil {
				t.Fatal(err)
			}
			s.Writer.failAt = failOnce(step, broken)
			r := person("a", tenants.KindFormSubmission, "first", "k1")
			in := tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{{Time: t0, TenantID: "a", Actor: "key:k1", Action: tenants.ActionSubmissionAccepted}},
				Events: []tenants.OutboxEvent{{ID: r.ID + "#created", TenantID: "a", Type: "submission.created", Time: t0, Payload: "{}"}}}
			if _, err := s.Writer.Ingest(ctx, in); err == nil {
				t.Fatal("Ingest succeeded through the failure")
			}
			if _, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "first"); !errors.Is(err, tenants.ErrNotFound) {
				t.Errorf("after the error the record is still there (%v): a repeat without a submission id stores the person twice", err)
			}
			if n, _ := s.Outbox.events.CountDocuments(ctx, bson.D{}); n != 0 {
				t.Errorf("after the error %d outbox events are left", n)
			}
			// The client's repeat, a new record, is stored once and completely.
			r2 := person("a", tenants.KindFormSubmission, "second", "k1")
			in.Record, in.Events[0].ID = r2, r2.ID+"#created"
			if stored, err := s.Writer.Ingest(ctx, in); err != nil || !stored {
				t.Fatalf("the repeat = %v, %v", stored, err)
			}
			if recs, _ := s.Records.Find(ctx, "a", []string{"k1"}); len(recs) != 1 {
				t.Errorf("the person is stored %d times", len(recs))
			}
			if n, _ := s.Outbox.events.CountDocuments(ctx, bson.D{}); n != 1 {
				t.Errorf("after the repeat %d outbox events, want 1", n)
			}
			verifyOK(t, s, "a", 1)
		})
	}
	t.Run("lost answer", func(t *testing.T) {
		s := openStore(t, server.URI(), freshDB(t))
		s.Writer.failAt = failOnce("audit", &tenants.StoreError{Op: "append audit", Err: fmt.Errorf("%w (connection cut)", tenants.ErrUnavailable)})
		ingest(t, s, person("a", tenants.KindFormSubmission, "r1", "k1"))
		verifyOK(t, s, "a", 1)
	})
}

// TestRemovedEndStaysReported: the last entries of a chain removed from the database are
// reported by every later verification, appends after it included, until an operator
// acknowledges the break; then the chain verifies again, the acknowledgment in it.
func TestRemovedEndStaysReported(t *testing.T) {
	s := openStore(t, server.URI(), freshDB(t))
	for i := range 5 {
		if err := s.Audit.Append(ctx, chainEntry("t", i)); err != nil {
			t.Fatal(err)
		}
	}
	verifyOK(t, s, "t", 5)
	list, _ := s.Audit.List(ctx, "t", tenants.AuditFilter{Limit: 2})
	for _, e := range list {
		if _, err := s.Audit.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: e.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	var broken string
	for i := range 3 {
		rep, err := tenants.VerifyChains(ctx, s.AuditChains, "t", t0)
		if err != nil || rep.OK {
			t.Fatalf("verify %d after the removal = %+v, %v; want broken", i, rep, err)
		}
		if broken = rep.BrokenID; i == 1 {
			// An instance appends meanwhile: the chain goes on after the removed end.
			if err := s.Audit.Append(ctx, chainEntry("t", 10)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if v, _ := s.AuditChains.LastVerification(ctx, "t"); v.OK {
		t.Fatalf("the kept verification (the admin page) says OK: %+v", v)
	}
	rep, err := tenants.AcknowledgeBreak(ctx, s.AuditChains, s.Audit, "cli", "t", broken, "entries lost in a restore", t0)
	if err != nil || !rep.OK {
		t.Fatalf("acknowledge %s = %+v, %v; want verified", broken, rep, err)
	}
	if err := s.Audit.Append(ctx, chainEntry("t", 11)); err != nil {
		t.Fatal(err)
	}
	verifyOK(t, s, "t", 6) // 3 left, 1 appended after the removal, the acknowledgment, 1 more
}

// TestDurableConcerns: writes wait for a journaled majority and reads see majority-committed
// data, whatever the connection string says.
func TestDurableConcerns(t *testing.T) {
	var mu sync.Mutex
	sent := map[string]bson.Raw{}
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := sent[e.CommandName]; !ok {
			sent[e.CommandName] = slices.Clone(e.Command)
		}
	}}
	s, err := Open(ctx, Config{URI: server.URI() + "?w=1&journal=false&readConcernLevel=local", Database: freshDB(t), monitor: mon})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	ingest(t, s, person("a", tenants.KindFormSubmission, "r1", "k1"))
	if _, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	insert, find := sent["insert"], sent["find"]
	if w, j := insert.Lookup("writeConcern", "w").StringValue(), insert.Lookup("writeConcern", "j"); w != "majority" || !j.Boolean() {
		t.Errorf("insert sent with writeConcern %v, want majority, journaled", insert.Lookup("writeConcern"))
	}
	if l := find.Lookup("readConcern", "level"); l.StringValue() != "majority" {
		t.Errorf("find sent with readConcern %v, want majority", find.Lookup("readConcern"))
	}
}

// TestLeases: of two instances one holds a job's lease and renews it; the other takes it
// over only once it expired, and the first then no longer holds it.
func TestLeases(t *testing.T) {
	db := freshDB(t)
	a, b := openStore(t, server.URI(), db), openStore(t, server.URI(), db)
	clk := &clock{t: t0}
	a.now, b.now = clk.now, clk.now
	hold := func(s *Store, owner string) bool {
		t.Helper()
		held, err := s.Leases.Hold(ctx, "expiry", owner, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return held
	}
	// Both at once: exactly one wins.
	var wg sync.WaitGroup
	var won [2]bool
	wg.Go(func() { won[0] = hold(a, "A") })
	wg.Go(func() { won[1] = hold(b, "B") })
	wg.Wait()
	if won[0] == won[1] {
		t.Fatalf("racing for a free lease: A %v, B %v; want exactly one", won[0], won[1])
	}
	holder, other, hs, os := "A", "B", a, b
	if won[1] {
		holder, other, hs, os = "B", "A", b, a
	}
	clk.set(t0.Add(50 * time.Second))
	if !hold(hs, holder) || hold(os, other) {
		t.Fatal("the holder's renewal within the lease, or the other's take, went wrong")
	}
	clk.set(t0.Add(100 * time.Second)) // renewed at 50 s: still held
	if hold(os, other) {
		t.Fatal("taken over before the renewed lease expired")
	}
	clk.set(t0.Add(111 * time.Second)) // the holder stopped renewing
	if !hold(os, other) {
		t.Fatal("an expired lease is not taken over")
	}
	if hold(hs, holder) {
		t.Fatal("the former holder still holds it")
	}
	if n, _ := a.db.Collection(colLeases).CountDocuments(ctx, bson.D{}); n != 1 {
		t.Errorf("%d lease documents, want the latest term only", n)
	}
}

// TestRevocationEntryNeverLost: a revocation whose rewrites were stored but whose audit entry
// could not be appended before its caller was answered an error (the connection gone for
// longer than the writer repeats the append) gets its entry from the caller's repeat, once;
// a further repeat adds nothing and the chain verifies.
func TestRevocationEntryNeverLost(t *testing.T) {
	s := openStore(t, server.URI(), freshDB(t))
	// The first call stops after its rewrites, as when every append after them was cut.
	ch, todo := twoRevocations(t, s, s)
	for _, c := range todo {
		if r, err := s.Writer.revoke(ctx, ch, c, tenants.NewAuditID(t0)); r.mark == "" || err != nil {
			t.Fatalf("revoke = %+v, %v", r, err)
		}
	}
	revoked := func() []tenants.AuditEntry {
		es, err := s.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentRevoked})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	if es := revoked(); len(es) != 0 {
		t.Fatalf("%d entries before the repeat", len(es))
	}
	// The caller's repeat: nothing left to change, but the entry is owed.
	got, err := s.Writer.Revoke(ctx, ch)
	if err != nil || len(got) != 2 {
		t.Fatalf("the repeat = %d records, %v; want the 2 revoked by the first call", len(got), err)
	}
	es := revoked()
	if len(es) != 1 || len(es[0].RecordIDs) != 2 {
		t.Fatalf("after the repeat %d consent.revoked entries (%v); want one naming both records", len(es), es)
	}
	if got, err := s.Writer.Revoke(ctx, ch); err != nil || len(got) != 0 {
		t.Fatalf("a further repeat = %d records, %v; want none", len(got), err)
	}
	if es := revoked(); len(es) != 1 {
		t.Errorf("after a further repeat %d entries, want 1", len(es))
	}
	verifyOK(t, s, "f", 3)
}

// TestRevocationPartlyAudited: a revocation whose second rewrite failed with its answer lost
// (stored, marked, not known to be) audits the first record before answering the error; the
// repeat then audits the second, which the first entry does not name.
func TestRevocationPartlyAudited(t *testing.T) {
	s := openStore(t, server.URI(), freshDB(t))
	ch, todo := twoRevocations(t, s, s)
	// Both rewrites stored under the call's mark; the call knows of the first only and audits
	// it, as Revoke does on the error of the second.
	entryID := tenants.NewAuditID(t0)
	for _, c := range todo {
		if r, err := s.Writer.revoke(ctx, ch, c, entryID); r.mark == "" || err != nil {
			t.Fatalf("revoke = %+v, %v", r, err)
		}
	}
	if err := s.Writer.auditRevoked(ctx, ch, tenants.NewAuditID(t0), []revokedRec{{rec: todo[0].after, mark: entryID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Writer.Revoke(ctx, ch); err != nil {
		t.Fatal(err)
	}
	es, err := s.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentRevoked})
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	for _, e := range es {
		for _, id := range e.RecordIDs {
			named[id]++
		}
	}
	if named["r1"] != 1 || named["r2"] != 1 {
		t.Errorf("consent.revoked names r1 %d times, r2 %d times; want once each (%d entries)", named["r1"], named["r2"], len(es))
	}
	verifyOK(t, s, "f", 4)
}

// TestRevocationRewriteLandsLate: the rewrites of a revocation answered an error reach the
// database only after the caller's repeat read the records (a cut connection's command still
// running on the server), so they carry that call's mark while its entry is never appended.
// The repeat, its own rewrites refused and finding the records changed as it would change
// them, owes their entry: it appends one naming both before it answers success, so that an
// erasure after it (which rewrites the records without the mark) loses nothing.
func TestRevocationRewriteLandsLate(t *testing.T) {
	db := freshDB(t)
	late := openStore(t, server.URI(), db)
	var armed atomic.Bool
	var land func()
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "update" && armed.CompareAndSwap(true, false) {
			land()
		}
	}}
	s, err := Open(ctx, Config{URI: server.URI(), Database: db, monitor: mon})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	// The first call read the records; its rewrites land as the repeat sends its first one.
	ch, todo := twoRevocations(t, s, late)
	var landed atomic.Int64
	land = func() {
		first := tenants.NewAuditID(t0)
		for _, c := range todo {
			if r, err := late.Writer.revoke(ctx, ch, c, first); r.mark == first && err == nil {
				landed.Add(1)
			}
		}
	}
	armed.Store(true)
	got, err := s.Writer.Revoke(ctx, ch)
	if landed.Load() != 2 {
		t.Fatalf("%d of the first call's rewrites landed, want 2", landed.Load())
	}
	if err != nil || len(got) != 2 {
		t.Errorf("the repeat = %d records, %v; want the 2 the first call revoked", len(got), err)
	}
	es, err := s.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentRevoked})
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	for _, e := range es {
		for _, id := range e.RecordIDs {
			named[id]++
		}
	}
	if named["r1"] != 1 || named["r2"] != 1 {
		t.Errorf("consent.revoked names r1 %d times, r2 %d times; want once each (%d entries)", named["r1"], named["r2"], len(es))
	}
	for _, id := range []string{"r1", "r2"} {
		d, err := s.Records.getDoc(ctx, "f", tenants.KindFormSubmission, tenants.RecordID("f", tenants.KindFormSubmission, id))
		if err != nil || d.AuditPending != "" {
			t.Errorf("record %s keeps the mark %q (%v) after its entry was appended", id, d.AuditPending, err)
		}
	}
	verifyOK(t, s, "f", 3)
}

// twoRevocations stores tenant f's two records of the person with match key k1 through s, and
// returns a revocation of their general-contact consents with the rewrites that the call on
// reader works out for it (two: neither is revoked yet).
func twoRevocations(t *testing.T, s, reader *Store) (tenants.Change, []change) {
	t.Helper()
	ingest(t, s, person("f", tenants.KindFormSubmission, "r1", "k1"), person("f", tenants.KindFormSubmission, "r2", "k1"))
	ch := faultChange("k1", func(rec *tenants.Record) (bool, error) {
		return rec.Consents.RevokeGeneralContact(t0.Add(time.Minute), "api"), nil
	}, tenants.ActionConsentRevoked)
	docs, err := reader.Records.changeDocs(ctx, ch)
	if err != nil {
		t.Fatal(err)
	}
	todo, _, err := reader.Writer.revocations(ctx, docs, ch)
	if err != nil || len(todo) != 2 {
		t.Fatalf("revocations = %d, %v; want 2", len(todo), err)
	}
	return ch, todo
}
