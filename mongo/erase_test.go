package mongo

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// errCrash stands for a process that stops between two steps of an erasure.
var errCrash = errors.New("crash")

// eraseFixture opens a store on a settable clock holding three records of one person of
// tenant a (two kinds) and one of another person.
func eraseFixture(t *testing.T) (*Store, *clock) {
	t.Helper()
	s := openStore(t, server.URI(), freshDB(t))
	c := &clock{t: t0}
	s.now = c.now
	s.hooks.claimWait = 200 * time.Millisecond
	ingest(t, s, person("a", tenants.KindFormSubmission, "f1", "ke"), person("a", tenants.KindFormSubmission, "f2", "ke", "kp"),
		person("a", tenants.KindCanvassing, "c1", "kp"), person("a", tenants.KindFormSubmission, "other", "kz"))
	return s, c
}

// eraseChange is the change the tests erase with: contact data and match keys go.
func eraseChange(keys ...string) tenants.Change {
	return tenants.Change{TenantID: "a", MatchKeys: keys,
		Apply: func(rec *tenants.Record) (bool, error) {
			rec.Contact, rec.MatchKeys, rec.AnonymisedAt = tenants.Contact{}, nil, &t0
			return true, nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			ids := make([]string, len(changed))
			for i, r := range changed {
				ids[i] = r.PublicID
			}
			return []tenants.AuditEntry{{Time: t0, TenantID: "a", Actor: "key:k1", Action: tenants.ActionGDPRAnonymised, RecordIDs: ids}}
		}}
}

// erased returns how many records the audit log names as erased, in how many entries.
func erased(t *testing.T, s *Store) (records, entries int) {
	t.Helper()
	list, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		records += len(e.RecordIDs)
	}
	return records, len(list)
}

// found returns how many of the person's records are still found.
func found(t *testing.T, s *Store) int {
	t.Helper()
	recs, err := s.Records.Find(ctx, "a", []string{"ke", "kp"})
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// claimsLeft counts the claims in the store.
func claimsLeft(t *testing.T, s *Store) int64 {
	t.Helper()
	n, err := s.claims.c.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEraseCrashAfterClaim(t *testing.T) {
	s, clk := eraseFixture(t)
	s.hooks.afterClaim = func() error { return errCrash }
	if _, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, errCrash) {
		t.Fatalf("Erase = %v, want the crash", err)
	}
	s.hooks.afterClaim = nil

	// Within the lease the claims belong to an erasure that may still be running: a repeat
	// waits for it, then answers unavailable (503), never success with the records as they were.
	clk.set(t0.Add(claimLease - time.Second))
	if got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, tenants.ErrUnavailable) {
		t.Errorf("a repeat within the lease = %d records, %v; want unavailable", len(got), err)
	}
	if n := found(t, s); n != 3 {
		t.Errorf("within the lease %d of 3 records are found, want all: they are left to their claim", n)
	}
	if n, _ := erased(t, s); n != 0 {
		t.Errorf("audited %d records within the lease", n)
	}

	// Past the lease the erasure that claimed them has stopped: a repeat counts them, once.
	clk.set(t0.Add(claimLease + time.Second))
	got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
	if err != nil || len(got) != 3 {
		t.Fatalf("a repeat past the lease = %d records, %v; want 3", len(got), err)
	}
	for _, r := range got {
		if r.Contact.Email == nil {
			t.Errorf("%s is returned as it was before, with its e-mail: %+v", r.PublicID, r.Contact)
		}
	}
	if n := found(t, s); n != 0 {
		t.Errorf("%d records still found", n)
	}
	if again, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); err != nil || len(again) != 0 {
		t.Errorf("one more repeat = %d, %v; want 0", len(again), err)
	}
	if n, entries := erased(t, s); n != 3 || entries != 1 {
		t.Errorf("audit names %d records in %d entries, want 3 in 1", n, entries)
	}
	if n := claimsLeft(t, s); n != 0 {
		t.Errorf("%d claims left after the erasure", n)
	}
}

func TestEraseCrashAfterAudit(t *testing.T) {
	s, clk := eraseFixture(t)
	s.hooks.afterAudit = func() error { return errCrash }
	if _, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, errCrash) {
		t.Fatalf("Erase = %v, want the crash", err)
	}
	s.hooks.afterAudit = nil
	if n, _ := erased(t, s); n != 3 {
		t.Fatalf("audited %d records before the crash, want 3", n)
	}
	clk.set(t0.Add(time.Second))
	if got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); err != nil || len(got) != 0 {
		t.Errorf("the repeat = %d records, %v; want 0: they were counted before the crash", len(got), err)
	}
	if n := found(t, s); n != 0 {
		t.Errorf("the repeat left %d records unstripped", n)
	}
	if rec, _ := s.Records.Get(ctx, "a", tenants.KindCanvassing, "c1"); rec.Contact.Email != nil || rec.AnonymisedAt == nil {
		t.Errorf("c1 after the repeat: %+v", rec)
	}
	if n, entries := erased(t, s); n != 3 || entries != 1 {
		t.Errorf("audit names %d records in %d entries, want 3 in 1", n, entries)
	}
	if n := claimsLeft(t, s); n != 0 {
		t.Errorf("%d claims left after the repeat", n)
	}
	if rec, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "other"); err != nil || rec.Contact.Email == nil {
		t.Errorf("another person's record changed: %+v, %v", rec, err)
	}
}

// TestEraseConcurrentTakeover: erasures running at once past the lease of a crashed one take
// its records over and count each once.
func TestEraseConcurrentTakeover(t *testing.T) {
	s, clk := eraseFixture(t)
	s.hooks.afterClaim = func() error { return errCrash }
	if _, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, errCrash) {
		t.Fatalf("Erase = %v, want the crash", err)
	}
	s.hooks.afterClaim = nil
	clk.set(t0.Add(claimLease + time.Second))
	s.hooks.claimWait = 10 * time.Second // one holds the records while the others wait for it
	const n = 4
	counts := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var got []tenants.Record
			got, errs[i] = s.Writer.Erase(ctx, eraseChange("ke", "kp"))
			counts[i] = len(got)
		})
	}
	wg.Wait()
	sum := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("erasure %d: %v", i, errs[i])
		}
		sum += counts[i]
	}
	if records, _ := erased(t, s); sum != 3 || records != 3 {
		t.Errorf("counted %v = %d, audited %d; want 3 and 3", counts, sum, records)
	}
}

// TestEraseStripAfterRevoke: a revocation between an erasure's claim and its stripping is
// not lost, and the record is stripped all the same.
func TestEraseStripAfterRevoke(t *testing.T) {
	s, _ := eraseFixture(t)
	s.hooks.afterAudit = func() error {
		_, err := s.Writer.Revoke(ctx, revocation("kp"))
		return err
	}
	got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
	if err != nil || len(got) != 3 {
		t.Fatalf("Erase = %d records, %v; want 3", len(got), err)
	}
	rec, err := s.Records.Get(ctx, "a", tenants.KindCanvassing, "c1")
	if err != nil || rec.Contact.Email != nil || len(rec.MatchKeys) != 0 ||
		rec.Consents.GeneralContactEmail.Status != tenants.StatusRevoked {
		t.Errorf("c1 after revocation and erasure: %+v, %v", rec, err)
	}
}

// revocation revokes general contact by e-mail where granted.
func revocation(keys ...string) tenants.Change {
	return tenants.Change{TenantID: "a", MatchKeys: keys,
		Apply: func(rec *tenants.Record) (bool, error) {
			return rec.Consents.RevokeGeneralContact(t0.Add(time.Minute), "api"), nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: t0, TenantID: "a", Actor: "key:k1", Action: tenants.ActionConsentRevoked,
				Detail: fmt.Sprint(len(changed))}}
		}}
}

// TestRevokeAfterConcurrentChange: a record changed between a revocation's read and its write
// is read again, and the other change is kept.
func TestRevokeAfterConcurrentChange(t *testing.T) {
	s, _ := eraseFixture(t)
	ch := revocation("kz")
	apply, calls := ch.Apply, 0
	ch.Apply = func(rec *tenants.Record) (bool, error) {
		if calls++; calls == 1 {
			// Another writer expires the primary purpose consent meanwhile.
			c, _ := s.Records.col(rec.Kind)
			if _, err := c.UpdateOne(ctx, ofTenant("a", rec.ID), bson.D{{Key: "$set", Value: bson.D{
				{Key: "consents.primaryPurpose.status", Value: tenants.StatusExpired}}}, {Key: "$inc", Value: bson.D{{Key: "rev", Value: 1}}}}); err != nil {
				return false, err
			}
		}
		return apply(rec)
	}
	changed, err := s.Writer.Revoke(ctx, ch)
	if err != nil || len(changed) != 1 || calls != 2 {
		t.Fatalf("Revoke = %d changed, %v after %d applications; want 1 after 2", len(changed), err, calls)
	}
	rec, _ := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "other")
	if rec.Consents.PrimaryPurpose.Status != tenants.StatusExpired || rec.Consents.GeneralContactEmail.Status != tenants.StatusRevoked {
		t.Errorf("consents after both changes: %+v", rec.Consents)
	}
}

// TestIngestFillsAuditGap: a repeat of an ingestion whose record was stored but whose audit
// entry was not (a crash in between) appends the entry.
func TestIngestFillsAuditGap(t *testing.T) {
	s, _ := eraseFixture(t)
	r := person("a", tenants.KindFormSubmission, "f1", "ke")
	if _, err := s.Audit.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: ingestionEntryID(r, tenants.ActionSubmissionAccepted)}}); err != nil {
		t.Fatal(err)
	}
	entry := tenants.AuditEntry{Time: t0, TenantID: "a", Actor: "key:k1", Action: tenants.ActionSubmissionAccepted}
	for range 2 {
		stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{entry}})
		if err != nil || stored {
			t.Fatalf("repeat = %v, %v; want not stored", stored, err)
		}
	}
	list, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionSubmissionAccepted})
	if err != nil || len(list) != 4 {
		t.Errorf("audit entries = %d, %v; want 4 (one per record, the missing one appended once)", len(list), err)
	}
}

// TestEraseAfterAnotherFinished: an erasure that read the records before another erasure
// stripped them (and removed its claims) wins claims of records that no longer carry the keys:
// it counts none of them and leaves no claim behind.
func TestEraseAfterAnotherFinished(t *testing.T) {
	s, _ := eraseFixture(t)
	late := eraseChange("ke", "kp")
	strip, first := late.Apply, true
	late.Apply = func(rec *tenants.Record) (bool, error) {
		if first {
			first = false
			if got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); err != nil || len(got) != 3 {
				return false, fmt.Errorf("the other erasure = %d, %v", len(got), err)
			}
		}
		return strip(rec)
	}
	if got, err := s.Writer.Erase(ctx, late); err != nil || len(got) != 0 {
		t.Errorf("the late erasure = %d records, %v; want 0", len(got), err)
	}
	if n, entries := erased(t, s); n != 3 || entries != 1 {
		t.Errorf("audit names %d records in %d entries, want 3 in 1", n, entries)
	}
	if n := claimsLeft(t, s); n != 0 {
		t.Errorf("%d claims left", n)
	}
}

// TestEraseRepeatAfterFailure: an erasure whose audit append failed answers its error and
// gives its claims back; the client's repeat right after it anonymises every record and
// counts each once.
func TestEraseRepeatAfterFailure(t *testing.T) {
	s, _ := eraseFixture(t)
	s.hooks.failAudit = func() error { return tenants.ErrUnavailable }
	if _, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, tenants.ErrUnavailable) {
		t.Fatalf("Erase = %v, want the failure", err)
	}
	s.hooks.failAudit = nil
	got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
	if err != nil || len(got) != 3 {
		t.Errorf("the repeat = %d records, %v; want 3", len(got), err)
	}
	if n := found(t, s); n != 0 {
		t.Errorf("the repeat answered success with %d records still found", n)
	}
	if n, entries := erased(t, s); n != 3 || entries != 1 {
		t.Errorf("audit names %d records in %d entries, want 3 in 1", n, entries)
	}
	if n := claimsLeft(t, s); n != 0 {
		t.Errorf("%d claims left", n)
	}
}

// TestEraseWhileAnotherRuns: a call that finds the records claimed by a call still running
// waits for it and answers once they are anonymised, never before; the records count once.
func TestEraseWhileAnotherRuns(t *testing.T) {
	s, _ := eraseFixture(t)
	s.hooks.claimWait = 5 * time.Second
	claimed, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.hooks.afterClaim = func() error {
		once.Do(func() {
			close(claimed)
			<-release
		})
		return nil
	}
	first := make(chan int, 1)
	go func() {
		got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
		if err != nil {
			t.Error(err)
		}
		first <- len(got)
	}()
	<-claimed
	second := make(chan int, 1)
	go func() {
		got, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
		if err != nil {
			t.Error(err)
		}
		if n := found(t, s); n != 0 {
			t.Errorf("the second call answered success with %d records still found", n)
		}
		second <- len(got)
	}()
	time.Sleep(300 * time.Millisecond)
	close(release)
	if a, b := <-first, <-second; a+b != 3 {
		t.Errorf("the calls counted %d and %d records, want 3 in all", a, b)
	}
	if n, _ := erased(t, s); n != 3 {
		t.Errorf("audit names %d records, want 3", n)
	}
}
