package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// ErrDamaged is the error (wrapped) of a database that SQLite's quick_check found damaged,
// at start or in the check that runs beside a start after a clean shutdown.
var ErrDamaged = errors.New("damaged")

// cleanMarkSuffix names the clean-shutdown marker beside the database file. Close writes it
// once the last connection has copied the log into the file and SQLite removed the log, and
// only when the whole file was checked since the start; every start removes it before
// anything is written. A start that finds it, matching the file's size and modification time
// and with no log beside it, knows that the file is as a checked, cleanly closed store left
// it (docs/OPERATIONS.md#start-up-checks).
const cleanMarkSuffix = ".clean"

// cleanMark is the marker's content: the database file as Close left it.
type cleanMark struct {
	Size    int64 `json:"size"`
	MTimeNs int64 `json:"mtimeNs"`
}

// takeCleanMark removes the clean-shutdown marker of the database at path, durably, and
// reports whether it was there and matches the file (whose log is absent or empty).
func takeCleanMark(path string) (bool, error) {
	mark := path + cleanMarkSuffix
	b, err := os.ReadFile(mark)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("clean-shutdown marker: %w", err)
	}
	if err := os.Remove(mark); err != nil {
		return false, fmt.Errorf("clean-shutdown marker: %w", err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return false, fmt.Errorf("clean-shutdown marker: %w", err)
	}
	var m cleanMark
	if json.Unmarshal(b, &m) != nil {
		return false, nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != m.Size || fi.ModTime().UnixNano() != m.MTimeNs {
		return false, nil
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return false, nil
	}
	return true, nil
}

// writeCleanMark records the database file at path as Close left it; it writes nothing when
// a log is still beside the file (another process has the database open).
func writeCleanMark(path string) error {
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(cleanMark{Size: fi.Size(), MTimeNs: fi.ModTime().UnixNano()})
	tmp := path + cleanMarkSuffix + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path+cleanMarkSuffix)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkBeside runs the whole-file check on a read connection beside the running store. A
// damaged database is reported to onDamage (the server stops on it) and makes Ping fail; the
// store's clean-shutdown marker is written at Close only once the check has finished.
func (s *Store) checkBeside(onDamage func(error)) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopCheck = cancel
	s.checkDone = make(chan struct{})
	s.checking.Store(true)
	go func() {
		defer close(s.checkDone)
		defer s.checking.Store(false)
		start := time.Now()
		err := s.quickCheckOn(ctx, s.r)
		if ctx.Err() != nil {
			return // stopped by Close before it finished: the next start checks again
		}
		if err != nil {
			s.damaged.Store(&err)
			slog.Error("the database check beside the start found damage; the server stops", "err", err.Error())
			if onDamage != nil {
				onDamage(err)
			}
			return
		}
		s.checked.Store(true)
		slog.Info("database check beside the start finished", "took", time.Since(start).Round(time.Millisecond).String())
	}()
}

// Checked reports whether the whole file was found undamaged since the start (at once, or by
// the check beside a start after a clean shutdown, which may still run).
func (s *Store) Checked() bool { return s.checked.Load() }
