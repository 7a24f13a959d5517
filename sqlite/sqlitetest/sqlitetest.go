// Package sqlitetest gives tests a fresh embedded store without migrating one each time: the
// schema is migrated once per test process, in a template dir, and each fresh data dir gets a
// copy of its files. Applying every migration to an empty file costs most of a fresh store's
// start (under the race detector, about 0.7 s of each), and the copy is the very file that
// migrating would leave. Tests of the migrations themselves open empty dirs, not these.
// It is imported by tests only.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/consentforms/consentforms/sqlite"
)

var (
	once   sync.Once
	files  map[string][]byte // a migrated store's files by name
	failed error
)

// Seed fills dir, which must be empty or absent, with the files of a freshly migrated store
// that no one has written to: opening dir then finds every migration applied.
func Seed(dir string) error {
	once.Do(func() { files, failed = migrate() })
	if failed != nil {
		return failed
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, b := range files {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// migrate opens and closes a store in a temp dir and keeps its files' bytes.
func migrate() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "sqlitetest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := sqlite.Open(context.Background(), sqlite.Config{Dir: dir})
	if err != nil {
		return nil, fmt.Errorf("migrate the template store: %w", err)
	}
	if err := s.Close(context.Background()); err != nil {
		return nil, fmt.Errorf("close the template store: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == sqlite.LockFileName {
			continue
		}
		if out[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	return out, nil
}
