package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// An erasure's scrub makes the removed data unrecoverable from the files: a truncating WAL
// checkpoint moves the changed pages into the database file, where secure_delete has zeroed
// what was removed, and empties the log, which still holds the earlier page images.
//
// A checkpoint can only complete when no reader holds a snapshot older than the log's end
// (a long export, say), and it holds the writing connection while it waits, so every intake
// would wait with it. So a scrub waits for readers only briefly; one they hold up is left
// pending, and the scrubber tries it again until it succeeds. The erasure itself is committed
// either way.
const (
	scrubWait      = 250 * time.Millisecond
	startScrubWait = 5 * time.Second
	scrubRetry     = 500 * time.Millisecond
)

var errBusy = errors.New("wal checkpoint: readers hold an older snapshot")

func (w *Writer) scrubPending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending
}

// scrub checkpoints on conn, the writing connection, and records whether it is still pending.
func (w *Writer) scrub(ctx context.Context, conn *sql.Conn, wait time.Duration) {
	if w.s.checking.Load() {
		// The check beside the start holds one snapshot for its whole read of the file: no
		// checkpoint completes before it ends, and waiting for one would only hold the writer.
		w.mu.Lock()
		w.pending = true
		w.mu.Unlock()
		return
	}
	err := checkpoint(ctx, conn, wait)
	w.mu.Lock()
	w.pending = err != nil
	w.mu.Unlock()
}

// scrubNow scrubs on the writing connection.
func (w *Writer) scrubNow(ctx context.Context, wait time.Duration) {
	conn, err := w.s.w.Conn(ctx)
	if err != nil {
		w.mu.Lock()
		w.pending = true
		w.mu.Unlock()
		return
	}
	defer conn.Close()
	w.scrub(ctx, conn, wait)
}

// scrubber completes pending scrubs while the writer runs.
func (w *Writer) scrubber() {
	defer w.background.Done()
	t := time.NewTicker(scrubRetry)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if w.scrubPending() {
				ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
				w.scrubNow(ctx, scrubWait)
				cancel()
			}
		}
	}
}

// checkpoint runs a truncating checkpoint on conn, waiting at most wait for readers.
func checkpoint(ctx context.Context, conn *sql.Conn, wait time.Duration) error {
	var ms int
	// The pragma answers with the new value: read it.
	if err := conn.QueryRowContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, wait.Milliseconds())).Scan(&ms); err != nil {
		return fmt.Errorf("wal checkpoint: %w", err)
	}
	defer func() {
		_ = conn.QueryRowContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = 10000`).Scan(&ms)
	}()
	var busy, logFrames, done int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("wal checkpoint: %w", err)
	}
	if busy != 0 {
		return errBusy
	}
	return nil
}
