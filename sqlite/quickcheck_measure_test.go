package sqlite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMeasureStartCheck measures Open, whose quick_check reads the whole file, on a store of
// CONSENTFORMS_MEASURE_RECORDS records (with the sqlite3 shell to build it fast). Skipped
// unless the variable is set; the numbers are in docs/OPERATIONS.md#start-up-checks:
//
//	CONSENTFORMS_MEASURE_RECORDS=100000 go test ./sqlite -run TestMeasureStartCheck -v
func TestMeasureStartCheck(t *testing.T) {
	n := os.Getenv("CONSENTFORMS_MEASURE_RECORDS")
	if n == "" {
		t.Skip("set CONSENTFORMS_MEASURE_RECORDS to measure")
	}
	dir := t.TempDir()
	s, err := Open(context.Background(), Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close(context.Background())
	db := filepath.Join(dir, FileName)
	// Records of about 1 KB with one match key each, spread over 10 tenants.
	q := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<` + n + `)
INSERT INTO records (tenant_id, kind, public_id, form_id, created_at, pp_status, ge_status, gp_status, body)
SELECT 'tenant'||(x%10), 'form_submission', 'sub-'||x, 'petition', 1700000000000+x, 'granted', 'granted', 'not_granted',
 '{"contact":{"email":"p'||x||'@example.org"},"consents":{},"payload":{"pad":"'||hex(randomblob(200))||'"}}' FROM c;
INSERT INTO match_keys (key, rid) SELECT randomblob(16), rid FROM records;`
	if out, err := exec.Command("sqlite3", db, q).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err = Open(context.Background(), Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	_ = s.Close(context.Background())
	t.Logf("%s records, %d MiB: Open with quick_check took %v", n, fi.Size()>>20, took)
}
