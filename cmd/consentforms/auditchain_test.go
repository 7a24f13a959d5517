package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/jobs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// auditVerifyCLI runs `consentforms audit verify` with args and returns what it printed and
// whether it succeeded.
func auditVerifyCLI(t *testing.T, s *testServer, args ...string) (tenants.ChainReport, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"audit", "verify"}, args...), s.getenv, &out, io.Discard)
	var rep tenants.ChainReport
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("audit verify printed %q (%v): %v", out.String(), err, jerr)
	}
	return rep, err
}

// chainOf reads the tenant's chain in order, through the store the server runs on.
func chainOf(t *testing.T, s *testServer, tenantID string) []tenants.AuditEntry {
	t.Helper()
	store, err := openStore(context.Background(), configFrom(s.getenv))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	var out []tenants.AuditEntry
	if err := store.AuditChains.EachChained(context.Background(), tenantID, func(e tenants.AuditEntry) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// tamper changes the audit log directly in the store, as someone with access to the database
// could: sqlite runs on the embedded store's file, mongo on the audit collection.
func tamper(t *testing.T, s *testServer, sqlite func(db *sql.DB) error, mongoFn func(c *mongo.Collection) error) {
	t.Helper()
	if uri := s.getenv("MONGODB_URI"); uri != "" {
		client, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Fatal(err)
		}
		defer client.Disconnect(context.Background())
		if err := mongoFn(client.Database(s.getenv("MONGODB_DATABASE")).Collection("audit")); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir, "consentforms.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlite(db); err != nil {
		t.Fatal(err)
	}
}

// chainFixture is a tenant with a form, a key and five submissions, all in its chain.
func chainFixture(t *testing.T, s *testServer) (string, []tenants.AuditEntry) {
	t.Helper()
	tn := s.tenant()
	key := s.key(tn, "submissions:write")
	for i := range 5 {
		submit(t, s, key, map[string]any{"form_id": "petition", "email": fmt.Sprintf("p%d@example.org", i), "consent_to_general_contact_email": true})
	}
	entries := chainOf(t, s, tn)
	// tenant and form created, the key, and one consent.granted per submission
	if len(entries) != 2+1+5 {
		t.Fatalf("chain of %d entries, want the provisioning and one per submission", len(entries))
	}
	return tn, entries
}

// TestAuditChainEdited: editing one audit entry in the store makes audit verify fail at that
// entry (exit non-zero, its id printed), and the audit page says so; before, it verified.
func TestAuditChainEdited(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, entries := chainFixture(t, s)
	other := s.tenant()
	rep, err := auditVerifyCLI(t, s)
	if err != nil || !rep.OK || rep.Tenants != 2 || rep.Entries != int64(len(entries)+len(chainOf(t, s, other))) {
		t.Fatalf("audit verify = %+v, %v; want ok over both tenants' entries", rep, err)
	}
	a := newAdminClient(t, s)
	a.signIn("root@example.com", "root-password-1")
	if st, page := a.get("/admin/audit"); st != 200 || !strings.Contains(page, "Chain verified up to") {
		t.Fatalf("audit page %d, want the chain verified:\n%s", st, page)
	}

	victim := entries[len(entries)/2]
	tamper(t, s, func(db *sql.DB) error {
		_, err := db.Exec(`UPDATE audit SET actor = 'staff:someone-else' WHERE id = ?`, victim.ID)
		return err
	}, func(c *mongo.Collection) error {
		_, err := c.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: victim.ID}}, bson.D{{Key: "$set", Value: bson.D{{Key: "actor", Value: "staff:someone-else"}}}})
		return err
	})
	rep, err = auditVerifyCLI(t, s)
	if err == nil || rep.OK || rep.BrokenID != victim.ID || rep.TenantID != tn {
		t.Fatalf("after an edit: %+v, %v; want broken at %s of %s", rep, err, victim.ID, tn)
	}
	if !strings.Contains(err.Error(), victim.ID) {
		t.Errorf("error %q does not name the entry", err)
	}
	if rep, err := auditVerifyCLI(t, s, "--tenant", other); err != nil || !rep.OK || rep.Tenants != 1 {
		t.Errorf("the other tenant's chain: %+v, %v; want ok", rep, err)
	}
	if _, page := a.get("/admin/audit"); !strings.Contains(page, "Chain broken at entry") || !strings.Contains(page, victim.ID) {
		t.Errorf("audit page does not show the broken chain:\n%s", page)
	}
	if st, csv := a.get("/admin/audit/export.csv"); st != 200 || !strings.Contains(csv, ",hash") || !strings.Contains(csv, victim.Hash) {
		t.Errorf("audit CSV %d does not carry the hashes:\n%s", st, csv)
	}
}

// TestAuditChainRemovedOrReordered: removing an entry breaks the chain at the one after it;
// swapping two entries' places breaks it at the first of them; removing the last entry
// breaks it at that entry.
func TestAuditChainRemovedOrReordered(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, entries := chainFixture(t, s)
	gone, next := entries[3], entries[4]
	tamper(t, s, func(db *sql.DB) error {
		_, err := db.Exec(`DELETE FROM audit WHERE id = ?`, gone.ID)
		return err
	}, func(c *mongo.Collection) error {
		_, err := c.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: gone.ID}})
		return err
	})
	if rep, err := auditVerifyCLI(t, s, "--tenant", tn); err == nil || rep.BrokenID != next.ID {
		t.Fatalf("after a removal: %+v, %v; want broken at %s", rep, err, next.ID)
	}

	s2 := startServer(t)
	tn2, entries2 := chainFixture(t, s2)
	x, y := entries2[5], entries2[6]
	tamper(t, s2, func(db *sql.DB) error {
		_, err := db.Exec(`UPDATE audit SET chain = CASE id WHEN ? THEN -? ELSE -? END WHERE id IN (?, ?);
			UPDATE audit SET chain = -chain WHERE chain < 0`, x.ID, y.Chain, x.Chain, x.ID, y.ID)
		return err
	}, func(c *mongo.Collection) error {
		for _, sw := range []struct {
			id    string
			chain int64
		}{{x.ID, y.Chain}, {y.ID, x.Chain}} {
			if _, err := c.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: sw.id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "chain", Value: sw.chain}}}}); err != nil {
				return err
			}
		}
		return nil
	})
	if rep, err := auditVerifyCLI(t, s2, "--tenant", tn2); err == nil || rep.BrokenID != y.ID {
		t.Fatalf("after a swap: %+v, %v; want broken at %s, now first of the two", rep, err, y.ID)
	}

	// The last entry removed after a verification saw it: the chain left is valid in itself,
	// but no longer reaches that entry.
	s3 := startServer(t)
	tn3, entries3 := chainFixture(t, s3)
	if rep, err := auditVerifyCLI(t, s3); err != nil || !rep.OK {
		t.Fatalf("before: %+v, %v", rep, err)
	}
	last := entries3[len(entries3)-1]
	tamper(t, s3, func(db *sql.DB) error {
		_, err := db.Exec(`DELETE FROM audit WHERE id = ?`, last.ID)
		return err
	}, func(c *mongo.Collection) error {
		_, err := c.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: last.ID}})
		return err
	})
	if rep, err := auditVerifyCLI(t, s3, "--tenant", tn3); err == nil || rep.BrokenID != last.ID {
		t.Fatalf("after removing the last entry: %+v, %v; want broken at %s", rep, err, last.ID)
	}
}

// TestAuditChainConcurrent: many submissions at once, and staff changes beside them, leave
// one unbroken chain holding every entry.
func TestAuditChainConcurrent(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	key := s.key(tn, "submissions:write")
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			r := call(t, s, "POST", "/api/v1/forms/accept-submission", key, map[string]any{"form_id": "petition",
				"email": fmt.Sprintf("c%d@example.org", i), "consent_to_general_contact_email": true})
			if r.Status != 200 {
				t.Errorf("submit: %d %s", r.Status, r.Body)
			}
		})
	}
	for range 3 {
		wg.Go(func() { s.key(tn, "submissions:read") })
	}
	wg.Wait()
	entries := chainOf(t, s, tn)
	// tenant and form created, four keys, 60 submissions with one entry each (consent.granted)
	if want := 2 + 4 + 60; len(entries) != want {
		t.Errorf("chain holds %d entries, want %d", len(entries), want)
	}
	if rep, err := auditVerifyCLI(t, s); err != nil || !rep.OK || rep.Entries != int64(len(entries)) {
		t.Fatalf("audit verify = %+v, %v", rep, err)
	}
}

// TestAuditVerifySchedule: the daily verification is due a minute after the first start, then
// a day after the latest verification kept in the store, whichever instance ran it.
func TestAuditVerifySchedule(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_RETENTION_EVERY=0")
	store, err := openStore(context.Background(), configFrom(s.getenv))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if d, err := jobs.UntilVerification(context.Background(), store.AuditChains, now); err != nil || d != time.Minute {
		t.Fatalf("before any verification: %v, %v; want a minute", d, err)
	}
	for _, at := range []time.Time{now.Add(-23 * time.Hour), now.Add(-30 * time.Hour)} {
		if err := store.AuditChains.SaveVerification(context.Background(), tenants.ChainVerification{TenantID: "t_" + at.Format("15"), VerifiedAt: at, OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := jobs.UntilVerification(context.Background(), store.AuditChains, now); err != nil || d != time.Hour {
		t.Fatalf("verified 23 h ago: %v, %v; want an hour", d, err)
	}
}

// TestAuditChainBreakStaysReported: a removed end is reported by every later verification
// (the CLI, the daily job, the audit page), submissions after it included, until an operator
// acknowledges it with `audit acknowledge`, which the audit log keeps with its reason.
func TestAuditChainBreakStaysReported(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, _ := chainFixture(t, s)
	key := s.key(tn, "submissions:write")
	entries := chainOf(t, s, tn)
	if rep, err := auditVerifyCLI(t, s); err != nil || !rep.OK {
		t.Fatalf("before: %+v, %v", rep, err)
	}
	last := entries[len(entries)-1]
	tamper(t, s, func(db *sql.DB) error {
		_, err := db.Exec(`DELETE FROM audit WHERE id = ?`, last.ID)
		return err
	}, func(c *mongo.Collection) error {
		_, err := c.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: last.ID}})
		return err
	})
	for i := range 3 {
		rep, err := auditVerifyCLI(t, s, "--tenant", tn)
		if err == nil || rep.OK || rep.BrokenID != last.ID {
			t.Fatalf("verification %d after the removal: %+v, %v; want broken at %s", i, rep, err, last.ID)
		}
		submit(t, s, key, map[string]any{"form_id": "petition", "email": fmt.Sprintf("later%d@example.org", i), "consent_to_general_contact_email": true})
	}
	a := newAdminClient(t, s)
	a.signIn("root@example.com", "root-password-1")
	if _, page := a.get("/admin/audit"); !strings.Contains(page, "Chain broken at entry") {
		t.Errorf("the audit page no longer shows the break:\n%s", page)
	}
	ack := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"audit", "acknowledge", "--tenant", tn}, args...), s.getenv, &out, io.Discard)
		var m map[string]any
		_ = json.Unmarshal(out.Bytes(), &m)
		return m, err
	}
	if _, err := ack("--entry", last.ID); err == nil {
		t.Error("acknowledge without --reason succeeded")
	}
	if _, err := ack("--entry", entries[0].ID, "--reason", "x"); err == nil {
		t.Error("acknowledging an entry the verification does not report succeeded")
	}
	if m, err := ack("--entry", last.ID, "--reason", "restored from the 02:00 backup, ticket OPS-7"); err != nil || m["ok"] != true {
		t.Fatalf("acknowledge = %v, %v; want the chain verified", m, err)
	}
	submit(t, s, key, map[string]any{"form_id": "petition", "email": "after@example.org", "consent_to_general_contact_email": true})
	if rep, err := auditVerifyCLI(t, s); err != nil || !rep.OK {
		t.Errorf("after the acknowledgment: %+v, %v; want ok", rep, err)
	}
	if _, page := a.get("/admin/audit?action=audit.acknowledged"); !strings.Contains(page, "audit.acknowledged") || !strings.Contains(page, "Chain verified up to") {
		t.Errorf("the audit page shows no acknowledgment or no verified chain:\n%s", page)
	}
}
