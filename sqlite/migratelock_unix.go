//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"syscall"
)

// lockMigrations holds an exclusive flock on the database file (creating it empty, which
// SQLite reads as an empty database) while a process switches it to WAL and migrates, so that
// of two processes starting at once one migrates and the other then finds nothing to do:
// goose reads the applied versions before it migrates, and a statement such as ALTER TABLE
// ADD COLUMN cannot run twice. SQLite's own locks are fcntl locks, which flock does not touch.
func lockMigrations(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("migrations lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("migrations lock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
