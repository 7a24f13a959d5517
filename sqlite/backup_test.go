package sqlite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
)

// TestBackupWhileWriting: a backup taken while tenants are being inserted is a consistent
// database holding at least everything written before it began; restored into an empty dir
// (0700, file 0600), the store opens on it and reads it back. Restore refuses a dir that
// holds anything, and an existing backup file is never overwritten.
func TestBackupWhileWriting(t *testing.T) {
	s := openDir(t, t.TempDir())
	for i := range 50 {
		if err := s.Tenants.Insert(ctx, tenants.Tenant{ID: fmt.Sprintf("before-%d", i), Name: "T", Status: "active", CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.Tenants.Insert(ctx, tenants.Tenant{ID: fmt.Sprintf("during-%d", i), Name: "T", Status: "active", CreatedAt: time.Now()}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	out := filepath.Join(t.TempDir(), "backup.db")
	err := s.Backup(ctx, out)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	if err := s.Backup(ctx, out); err == nil {
		t.Error("a second backup to the same file overwrote it")
	}

	busy := t.TempDir()
	_ = os.WriteFile(filepath.Join(busy, "something"), []byte("x"), 0o600)
	if err := sqlite.Restore(ctx, out, busy); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("restore into a non-empty dir: %v", err)
	}
	if err := sqlite.Restore(ctx, filepath.Join(busy, "something"), t.TempDir()); err == nil {
		t.Error("restore of a file that is no backup succeeded")
	}

	dir := filepath.Join(t.TempDir(), "restored")
	secrets := filepath.Join(dir, "secrets.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(secrets, []byte("{}"), 0o600)
	if err := sqlite.Restore(ctx, out, dir, secrets); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("restored dir mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(dir, sqlite.FileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("restored file mode %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("beside the backup after restoring it: %v, want the file alone", entries)
	}
	r := openDir(t, dir)
	for i := range 50 {
		if _, err := r.Tenants.Get(ctx, fmt.Sprintf("before-%d", i)); err != nil {
			t.Fatalf("tenant before-%d after restore: %v", i, err)
		}
	}
	if err := r.Tenants.Insert(ctx, tenants.Tenant{ID: "after", Name: "T", Status: "active", CreatedAt: time.Now()}); err != nil {
		t.Errorf("writing to the restored store: %v", err)
	}
}
