package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Intake's durability wait and checkpoints run beside the writer, not on it (docs/STORAGE.md,
// "Group commit"). An ingestion batch commits with synchronous=NORMAL: its pages are in the
// write-ahead log, not yet on disk. The syncer then fsyncs the log and only after that are the
// batch's requests answered, while the writer already writes the next batch. A batch of webhook
// delivery outcomes also commits with synchronous=NORMAL, and is answered at once: the next
// fsync of the log makes it durable (a lost outcome means its delivery is sent again). Every
// other transaction on the writing connection commits with synchronous=FULL (durable at its
// commit), which also makes the batches before it durable.
//
// SQLite's automatic checkpoint would run inside whichever commit fills the log, on the
// writer; it is off on the writing connection. The checkpointer copies the log into the
// database file on a connection of its own (passive: it takes no lock the writer needs). But
// beside a writer that never pauses, a passive checkpoint never copies the whole log, and the
// log is only reused from its start once all of it is copied, so it would grow without bound.
// So once the log holds restartFrames frames, the writer itself, between two batches, runs a
// passive checkpoint: it copies only what came after the checkpointer's last pass, and then
// all of the log is in the database file, so the writer's next transaction starts the log
// again from its beginning (unless a reader still holds a snapshot in the log; then the writer
// tries again after its next batch).

// minBatch is the smallest batch written while an earlier one still waits for its fsync.
const minBatch = 32

// restartFrames is the log length (pages) at which the writer completes a checkpoint itself.
const restartFrames = 16000

// checkpointEvery is how often the checkpointer looks at the log. It copies the log into the
// database file once checkpointFrames pages wait there, or once any page waited quietEvery.
//
// A log copied whole is started again from its beginning by the next commit, and that commit
// then fsyncs the log's new header before writing its pages: a second fsync in the request's
// path. Copying every few hundred milliseconds whatever the log held made nearly every
// isolated write in a quiet store (an unsubscribe, a lone submission) wait for two fsyncs.
// (An erasure's scrub still empties the log: the write after it starts the log again.) Under
// load the log grows by far more than checkpointFrames between two looks, so the copies come
// as often as before.
const (
	checkpointEvery  = 200 * time.Millisecond
	checkpointFrames = 256
	quietEvery       = 10 * time.Second
)

// syncer fsyncs the write-ahead log for the batches committed without waiting for the disk,
// and then answers them, in commit order.
type syncer struct {
	wal string

	mu      sync.Mutex
	pending []func(error) // the committed batches not yet synced
	idle    chan struct{} // closed while nothing is pending or being synced
	kick    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

func newSyncer(wal string) *syncer {
	y := &syncer{wal: wal, idle: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	close(y.idle)
	go y.loop()
	return y
}

// busy returns a channel closed once no batch awaits its fsync.
func (y *syncer) busy() <-chan struct{} {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.idle
}

// add hands a committed batch to the syncer: done hears the fsync's outcome.
func (y *syncer) add(done func(error)) {
	y.mu.Lock()
	if len(y.pending) == 0 && isClosed(y.idle) {
		y.idle = make(chan struct{})
	}
	y.pending = append(y.pending, done)
	y.mu.Unlock()
	select {
	case y.kick <- struct{}{}:
	default:
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (y *syncer) loop() {
	defer close(y.stopped)
	for {
		select {
		case <-y.kick:
		case <-y.stop:
			y.flush()
			return
		}
		y.flush()
	}
}

// flush fsyncs the log for every batch pending now and answers them; batches committed while
// it syncs wait for the next round.
func (y *syncer) flush() {
	y.mu.Lock()
	batches := y.pending
	y.pending = nil
	y.mu.Unlock()
	if len(batches) > 0 {
		// fsync makes the log's pages durable whichever descriptor of the file asks.
		err := syncFile(y.wal)
		for _, done := range batches {
			done(err)
		}
	}
	y.mu.Lock()
	if len(y.pending) == 0 && !isClosed(y.idle) {
		close(y.idle)
	}
	y.mu.Unlock()
}

// close answers what is pending and stops the syncer.
func (y *syncer) close() {
	close(y.stop)
	<-y.stopped
}

// checkpointer copies the log into the database file on its own connection (see
// checkpointEvery), and remembers how long the log is.
type checkpointer struct {
	db   *sql.DB
	path string // the database file: its log is path-wal, the log's index path-shm
	// frames is the log's length at the last look, in pages.
	frames atomic.Int64
	// unsynced is set by the writer after commits that did not wait for the disk.
	unsynced atomic.Bool
	// indexed is set while the store counts among the log index's users (openIndex).
	indexed atomic.Bool
}

// logIndexes are the log index files (FileName-shm) the checkpointers of this process opened,
// by path, with the number of open stores on that path. They stay open until the last of
// those stores closed its connections: closing any descriptor of a file drops every POSIX
// lock the process holds on that file, and SQLite keeps its locks of the log on the index
// (another process, a sqlite3 shell say, would then take the index for unused and reset it).
// It is process-wide state on purpose (like lastDiskError): POSIX locks belong to the
// process, not to a store, so two stores of one process on one file must share the descriptor
// (SQLite keeps a process-wide list of its open files for the same reason).
var logIndexes = struct {
	sync.Mutex
	m map[string]*logIndex
}{m: map[string]*logIndex{}}

type logIndex struct {
	files  []*os.File // opened at the path, the current file last
	stores int
}

// openIndex counts the checkpointer's store in as a user of its log index; closeIndex counts
// it out (once, however often the store is closed), after its connections are closed, and
// closes the index files the last store's leaving leaves unused.
func (c *checkpointer) openIndex() {
	c.indexed.Store(true)
	path := c.path
	logIndexes.Lock()
	defer logIndexes.Unlock()
	x := logIndexes.m[path]
	if x == nil {
		x = &logIndex{}
		logIndexes.m[path] = x
	}
	x.stores++
}

func (c *checkpointer) closeIndex() {
	if !c.indexed.CompareAndSwap(true, false) {
		return
	}
	path := c.path
	logIndexes.Lock()
	defer logIndexes.Unlock()
	x := logIndexes.m[path]
	if x == nil {
		return
	}
	if x.stores--; x.stores > 0 {
		return
	}
	for _, f := range x.files {
		_ = f.Close()
	}
	delete(logIndexes.m, path)
}

// passiveCheckpoint runs a passive checkpoint on q and returns the log's length and how much of it
// is in the database file.
func passiveCheckpoint(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (frames, copied int64, err error) {
	var busy int64
	err = q.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, copied, err
}

func (c *checkpointer) run(stop <-chan struct{}, done func()) {
	defer done()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var waiting time.Time // since when pages of the log wait to be copied
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if frames, copied, ok := c.logState(); ok {
				c.frames.Store(int64(frames))
				if frames == copied {
					waiting = time.Time{}
					continue
				}
				if waiting.IsZero() {
					waiting = time.Now()
				}
				if frames-copied < checkpointFrames && time.Since(waiting) < quietEvery {
					// Not worth a copy yet. Commits that did not wait for the disk (webhook
					// outcomes) are made durable as a copy would have: by an fsync of the log.
					if c.unsynced.Swap(false) {
						_ = syncFile(c.path + "-wal")
					}
					continue
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			// An error or a partial copy (a reader on an older snapshot) is made up next time.
			if frames, _, err := passiveCheckpoint(ctx, c.db); err == nil {
				c.frames.Store(frames)
			}
			cancel()
		}
	}
}

// logState reads the log's length and how much of it is copied into the database file (its
// "mxFrame" and "nBackfill") from the log's index, whose layout SQLite documents ("WAL-index
// format"): native byte order, mxFrame at byte 16 of the header, nBackfill at byte 96. ok is
// false where the index cannot be read; the checkpointer then copies as it always did.
func (c *checkpointer) logState() (frames, copied uint32, ok bool) {
	f := c.indexFile()
	if f == nil {
		return 0, 0, false
	}
	var b [100]byte
	if _, err := f.ReadAt(b[:], 0); err != nil {
		return 0, 0, false
	}
	frames, copied = binary.NativeEndian.Uint32(b[16:]), binary.NativeEndian.Uint32(b[96:])
	return frames, copied, copied <= frames
}

// indexFile returns the log index, opening it when this process has it open for no store
// yet or SQLite made a new file; nil when it cannot be opened.
func (c *checkpointer) indexFile() *os.File {
	logIndexes.Lock()
	defer logIndexes.Unlock()
	x := logIndexes.m[c.path]
	if x == nil {
		return nil // the store is closing
	}
	path := c.path + "-shm"
	now, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if n := len(x.files); n > 0 {
		if was, err := x.files[n-1].Stat(); err == nil && os.SameFile(was, now) {
			return x.files[n-1]
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	x.files = append(x.files, f)
	return f
}
