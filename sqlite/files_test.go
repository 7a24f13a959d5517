package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
)

var ctx = context.Background()

func openDir(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	return s
}

// TestReopenKeepsData: a restart applies no migration twice and finds what was written.
func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	if err := s.Tenants.Insert(ctx, tenants.Tenant{ID: "a", Name: "A", Status: "active", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again := openDir(t, dir)
	if _, err := again.Tenants.Get(ctx, "a"); err != nil {
		t.Fatalf("after reopening: %v", err)
	}
}

// TestConcurrentFirstStarts: two processes starting on an empty data dir at once (a server
// and a CLI command) both open it.
func TestConcurrentFirstStarts(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
			if err == nil {
				err = s.Close(ctx)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
}

// TestTwoOpenersShareTheFiles: the CLI writes while the server has the store open; each sees
// the other's writes.
func TestTwoOpenersShareTheFiles(t *testing.T) {
	dir := t.TempDir()
	server, cli := openDir(t, dir), openDir(t, dir)
	if err := cli.Tenants.Insert(ctx, tenants.Tenant{ID: "a", Name: "A", Status: "active", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Tenants.Get(ctx, "a"); err != nil {
		t.Errorf("the server does not see the CLI's tenant: %v", err)
	}
	rec := tenants.Record{ID: tenants.RecordID("a", tenants.KindFormSubmission, "r"), TenantID: "a", Kind: tenants.KindFormSubmission,
		PublicID: "r", CreatedAt: time.Now()}
	if stored, err := server.Writer.Ingest(ctx, tenants.Ingestion{Record: rec}); err != nil || !stored {
		t.Fatalf("ingest: %v %v", stored, err)
	}
	if _, err := cli.Records.Get(ctx, "a", tenants.KindFormSubmission, "r"); err != nil {
		t.Errorf("the CLI does not see the server's record: %v", err)
	}
}

// TestFileModes: the data dir ends 0700 and every database file 0600, also when they existed
// with wider modes.
func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openDir(t, dir)
	if err := s.Tenants.Insert(ctx, tenants.Tenant{ID: "a", Name: "A", Status: "active", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	if len(entries) < 2 {
		t.Errorf("expected the database and its WAL files, found %d files", len(entries))
	}
}

// TestRefusesEarlierFormat: a data dir of the earlier FerretDB-based store is recognised and
// refused with a message that says what it is, rather than opened empty beside it.
func TestRefusesEarlierFormat(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "consentforms.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE "_ferretdb_collections" (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "earlier consentforms version") {
		t.Fatalf("Open = %v, want a refusal naming the earlier format", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, sqlite.FileName)); statErr == nil {
		t.Error("a new database was created beside the old files")
	}
}

// secretRecord is a record whose personal values are distinctive byte strings.
func secretRecord(id string, secret []string) tenants.Record {
	rec := tenants.Record{ID: tenants.RecordID("a", tenants.KindFormSubmission, id), TenantID: "a", Kind: tenants.KindFormSubmission,
		PublicID: id, CreatedAt: time.Now(), MatchKeys: []string{"k" + id},
		Contact: tenants.Contact{Email: &secret[0], PhoneNumber: &secret[1], LastName: &secret[2]},
		Address: tenants.Address{Street: &secret[3]},
		Payload: map[string]any{"note": "ip " + secret[4], "padding": strings.Repeat("p", 5000)}}
	rec.Consents.PrimaryPurpose = tenants.Consent{Status: tenants.StatusGranted, IPAddress: &secret[4]}
	return rec
}

// eraseAll erases the record with match key key, keeping nothing but its ids.
func eraseAll(t *testing.T, s *sqlite.Store, key string) {
	t.Helper()
	_, err := s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{key},
		Apply: func(r *tenants.Record) (bool, error) {
			*r = tenants.Record{ID: r.ID, TenantID: r.TenantID, Kind: r.Kind, PublicID: r.PublicID, CreatedAt: r.CreatedAt,
				AnonymisedAt: ptr(time.Now())}
			return true, nil
		},
		Audit: func([]tenants.Record) []tenants.AuditEntry { return nil }})
	if err != nil {
		t.Fatal(err)
	}
}

// filesHold reports which of values are in any file of dir.
func filesHold(dir string, values []string) []string {
	var all []byte
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		all = append(all, b...)
	}
	var out []string
	for _, v := range values {
		if bytes.Contains(all, []byte(v)) {
			out = append(out, v)
		}
	}
	return out
}

// TestErasureLeavesNoBytes: after an erasure, no byte of the erased values is in any of the
// store's files (database, WAL, shared memory), though they were there before.
func TestErasureLeavesNoBytes(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	secret := []string{"zanzibar.quintessence@erasure.example", "+4917612398765", "Quillfeather", "Oxbow Crescent 77", "198.51.100.77"}
	if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: secretRecord("r", secret)}); err != nil {
		t.Fatal(err)
	}
	if len(filesHold(dir, secret)) == 0 {
		t.Fatal("before the erasure the files lack the values: the test would prove nothing")
	}
	eraseAll(t, s, "kr")
	if left := filesHold(dir, secret); len(left) > 0 {
		t.Errorf("the store's files still hold %q", left)
	}
}

// TestErasureWhileAReaderHoldsASnapshot: a long read (an export) keeps the log from being
// truncated. The erasure still answers at once and intake goes on; the scrub completes once
// the reader is done.
func TestErasureWhileAReaderHoldsASnapshot(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	secret := []string{"yvonne.snapshot@erasure.example", "+4917699911122", "Longreadington", "Cursor Lane 5", "198.51.100.99"}
	if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: secretRecord("r", secret)}); err != nil {
		t.Fatal(err)
	}
	reader, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	tx, err := reader.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM records`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eraseAll(t, s, "kr")
	rec := tenants.Record{ID: tenants.RecordID("a", tenants.KindFormSubmission, "later"), TenantID: "a",
		Kind: tenants.KindFormSubmission, PublicID: "later", CreatedAt: time.Now()}
	if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: rec}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the erasure and the next ingestion took %v while a reader held a snapshot", d)
	}
	if len(filesHold(dir, secret)) == 0 {
		t.Fatal("the scrub completed under a reader's snapshot: this test no longer tests the wait")
	}
	_ = tx.Rollback()
	deadline := time.Now().Add(10 * time.Second)
	for len(filesHold(dir, secret)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := filesHold(dir, secret); len(left) > 0 {
		t.Errorf("10 s after the reader ended, the files still hold %q", left)
	}
}
