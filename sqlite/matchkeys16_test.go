package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestMatchKeysMoveTo16Bytes: a store whose match keys are in the text form (before migration
// 00016) finds its persons after the move to 16-byte keys, also when a start was stopped after
// part of the move; the old table is gone afterwards.
func TestMatchKeysMoveTo16Bytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	hash := tenants.NewHasher([]byte("0123456789abcdef0123456789abcdef")).Hash("a", "e", "ada@example.org")
	keys := []string{hash, "k-short", "k-other"}
	var rids []int64
	for i, id := range []string{"r1", "r2"} {
		rec := tenants.Record{ID: tenants.RecordID("a", tenants.KindFormSubmission, id), TenantID: "a", Kind: tenants.KindFormSubmission,
			PublicID: id, FormID: "f", CreatedAt: time.Unix(int64(i), 0).UTC(), MatchKeys: keys[i:]}
		if stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: rec}); err != nil || !stored {
			t.Fatalf("ingest: %v %v", stored, err)
		}
		var rid int64
		if err := s.r.QueryRowContext(ctx, `SELECT rid FROM records WHERE public_id = ?`, id).Scan(&rid); err != nil {
			t.Fatal(err)
		}
		rids = append(rids, rid)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The table as migration 00001 made it, holding the keys as text; the new one empty.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE match_keys RENAME TO match_keys_b`, `DELETE FROM match_keys_b`,
		`CREATE TABLE match_keys (tenant_id TEXT NOT NULL, key TEXT NOT NULL, rid INTEGER NOT NULL REFERENCES records (rid),
		PRIMARY KEY (tenant_id, key, rid)) WITHOUT ROWID`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	for i, rid := range rids {
		for _, k := range keys[i:] {
			if _, err := db.ExecContext(ctx, `INSERT INTO match_keys VALUES ('a', ?, ?)`, k, rid); err != nil {
				t.Fatal(err)
			}
		}
	}
	s = openAfterOneChunk(t, db, matchKeysMove, dir)
	for k, want := range map[string]int{hash: 1, "k-short": 2, "k-other": 2} {
		found, err := s.Records.Find(ctx, "a", []string{k})
		if err != nil || len(found) != want {
			t.Errorf("Find(%s) = %d records, %v; want %d", k, len(found), err, want)
		}
	}
	if found, _ := s.Records.Find(ctx, "b", []string{hash}); len(found) != 0 {
		t.Errorf("another tenant finds %d records", len(found))
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'match_keys_b'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("match_keys_b still there (%d, %v)", n, err)
	}
	var width int
	if err := s.r.QueryRowContext(ctx, `SELECT max(length(key)) FROM match_keys`).Scan(&width); err != nil || width != 16 {
		t.Errorf("keys of %d bytes (%v), want 16", width, err)
	}
}
