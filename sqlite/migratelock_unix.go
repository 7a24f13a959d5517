//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"syscall"
)

// LockFileName is the file beside the database that start-up locks while it migrates.
const LockFileName = FileName + ".migrate-lock"

// lockMigrations holds an exclusive flock on the migrations lock file in dir while a process
// switches the database to WAL and migrates, so that of two processes starting at once one
// migrates and the other then finds nothing to do: goose reads the applied versions before it
// migrates, and a statement such as ALTER TABLE ADD COLUMN cannot run twice.
//
// The lock is on a file of its own, never on the database file: SQLite's locks are POSIX
// (fcntl) locks, and closing any descriptor of a file drops every POSIX lock the process holds
// on it, SQLite's included. Every descriptor of the database file belongs to SQLite.
func lockMigrations(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(dir+string(os.PathSeparator)+LockFileName, os.O_RDWR|os.O_CREATE, 0o600)
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
