package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
)

// TestCleanShutdownMarker: only a store closed cleanly, after its whole file was checked,
// leaves the marker that lets the next start check beside the server; a running store (one
// that a crash or SIGKILL would stop) has none, so the start after a crash checks first.
func TestCleanShutdownMarker(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, sqlite.FileName+".clean")
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("no marker after a clean close: %v", err)
	}
	for _, full := range []bool{false, true} {
		s, err = sqlite.Open(ctx, sqlite.Config{Dir: dir, FullCheck: full})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(mark); !os.IsNotExist(err) {
			t.Fatalf("the marker is still there while the store runs (full check %v): %v", full, err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if full && !s.Checked() {
			t.Error("CONSENTFORMS_START_CHECK=full: not checked when Open returned")
		}
		for i := 0; !s.Checked() && i < 1000; i++ {
			time.Sleep(10 * time.Millisecond) // the check beside the start
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("no marker after a clean close (full check %v): %v", full, err)
		}
	}
	// A brief command (the CLI) after a clean shutdown leaves the marker again.
	s, err = sqlite.Open(ctx, sqlite.Config{Dir: dir, Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Checked() {
		t.Error("a brief command checked the whole file after a clean shutdown")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("no marker after a brief command's clean close: %v", err)
	}
}
