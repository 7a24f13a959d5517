package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database to path while the store stays in use
// (docs/OPERATIONS.md#backup-and-restore): SQLite's VACUUM INTO reads one snapshot, on a
// reading connection, so intake goes on meanwhile and the copy holds every transaction
// committed before it began and none after. The copy is rebuilt from the live pages only:
// nothing erased is in it. path must not exist; it is created 0600 and synced to disk. On
// failure nothing is left at path.
func (s *Store) Backup(ctx context.Context, path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	_ = f.Close()
	defer func() {
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	// A connection of its own: the reading pool is query-only, which VACUUM INTO's target
	// file counts against, and the writing connection must stay free for intake.
	db, err := sql.Open("sqlite", "file:"+s.path+"?"+pragmas)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return syncFile(path)
}

// Restore puts the backup at src into dir as the database, for Open to use: dir must be
// empty but for the files named in keep (the secrets file). src is checked first (a SQLite
// database that passes an integrity check and has this store's schema); the copy is written
// 0600 under a temporary name, synced, and renamed into place, so a failed restore leaves no
// database behind.
func Restore(ctx context.Context, src, dir string, keep ...string) error {
	if err := checkBackup(ctx, src); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, e := range entries {
		if !kept(dir, e.Name(), keep) {
			return fmt.Errorf("restore: the data dir %s is not empty (it holds %s); restore into an empty one", dir, e.Name())
		}
	}
	tmp := filepath.Join(dir, FileName+".restoring")
	if err := copyFile(src, tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("restore: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, FileName)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("restore: %w", err)
	}
	return syncFile(dir)
}

func kept(dir, name string, keep []string) bool {
	path, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	for _, k := range keep {
		if abs, err := filepath.Abs(k); err == nil && abs == path {
			return true
		}
	}
	return false
}

// checkBackup opens src read-only and requires an intact database with this store's
// migration table.
func checkBackup(ctx context.Context, src string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+src+"?mode=ro")
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer db.Close()
	var result string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		return fmt.Errorf("restore: %s is not an intact SQLite database (%v%s)", src, err, result)
	}
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name IN ('goose_db_version', 'records')").Scan(&n)
	if err != nil || n != 2 {
		return fmt.Errorf("restore: %s is not a consentforms backup", src)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return errors.Join(out.Sync(), out.Close())
}

// syncFile flushes a file or a directory to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
