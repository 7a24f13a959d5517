package sqlite

import (
	"context"
	"time"
)

// checkpointEvery is how often the checkpointer copies committed pages from the write-ahead
// log into the database file, or completes a pending scrub.
const checkpointEvery = 200 * time.Millisecond

// checkpointer copies the log into the database file on a connection of its own, beside the
// writer rather than inside its commits (SQLite's automatic checkpoint, turned off on the
// writing connection, runs in whichever commit fills the log): the writer's single thread is
// what bounds intake, and a passive checkpoint needs no lock the writer holds. The log is
// reused from its start once a checkpoint has copied all of it. While an erasure's scrub is
// pending (scrub.go), it tries the scrub instead, until it succeeds.
func (w *Writer) checkpointer() {
	defer w.background.Done()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			if w.scrubPending() {
				w.scrubNow(ctx, scrubWait)
			} else {
				var busy, logFrames, done int
				// An error or a partial copy (a reader on an older snapshot) is made up next time.
				_ = w.s.cp.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done)
			}
			cancel()
		}
	}
}
