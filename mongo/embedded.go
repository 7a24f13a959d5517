package mongo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// socketName is the unix socket the embedded store listens on inside the data dir, so that
// the CLI can reach the running server's store instead of opening the files a second time.
const socketName = "store.sock"

// Embedded is FerretDB on SQLite running in this process.
type Embedded struct {
	uri    string
	dbFile string
	sqlDB  *sql.DB
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex // serialises index fixes and checkpoints on sqlDB
}

// StartEmbedded starts FerretDB with its SQLite files in dir. It refuses to start when
// another process already serves the same dir.
func StartEmbedded(ctx context.Context, dir, database string) (*Embedded, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	listener := ferretdb.ListenerConfig{}
	sock := filepath.Join(abs, socketName)
	if len(sock) < 100 { // sun_path limit; a longer path runs on loopback TCP without CLI sharing
		if SocketAlive(abs) {
			return nil, fmt.Errorf("the data dir %s is in use by another running server", abs)
		}
		_ = os.Remove(sock) // stale after a crash
		listener.Unix = sock
	} else {
		listener.TCP = "127.0.0.1:0"
	}
	// secure_delete zeroes deleted and overwritten content so erased data leaves no bytes behind.
	sqliteURL := "file:" + abs + "/?_pragma=secure_delete(on)"
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  listener,
		Handler:   "sqlite",
		SQLiteURL: sqliteURL,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, fmt.Errorf("start embedded store: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e := &Embedded{cancel: cancel, done: make(chan struct{}), dbFile: filepath.Join(abs, database+".sqlite")}
	go func() {
		defer close(e.done)
		_ = f.Run(runCtx)
	}()
	if listener.Unix != "" {
		e.uri = "mongodb://" + url.PathEscape(sock) + "/"
	} else {
		e.uri = f.MongoDBURI()
	}
	return e, nil
}

// SocketAlive reports whether a server's embedded store answers on dir's socket.
func SocketAlive(dir string) bool {
	c, err := net.DialTimeout("unix", filepath.Join(dir, socketName), 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// SocketURI is the URI of the store a running server exposes in dir.
func SocketURI(dir string) string {
	abs, _ := filepath.Abs(dir)
	return "mongodb://" + url.PathEscape(filepath.Join(abs, socketName)) + "/"
}

// URI is the MongoDB connection string of the embedded store.
func (e *Embedded) URI() string { return e.uri }

func (e *Embedded) sqlite() (*sql.DB, error) {
	if e.sqlDB != nil {
		return e.sqlDB, nil
	}
	db, err := sql.Open("sqlite", "file:"+e.dbFile+"?_pragma=busy_timeout(10000)&_pragma=secure_delete(on)")
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db.SetMaxOpenConns(1)
	e.sqlDB = db
	return db, nil
}

// FixIDIndexes adds, to every collection table, the SQLite index on the expression FerretDB's
// _id pushdown queries use (its own _id index has a different expression, so without this an
// _id lookup scans the table; EMBEDDED-STORE.md).
func (e *Embedded) FixIDIndexes(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	db, err := e.sqlite()
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM "_ferretdb_collections"`)
	if err != nil {
		return fmt.Errorf("list collection tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("list collection tables: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	for _, t := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (_ferretdb_sjson->'$._id')`, t+"_cf_id", t)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("index %s: %w", t, err)
		}
	}
	return nil
}

// Checkpoint moves the write-ahead log into the database file and truncates it, so that
// page images of erased data do not survive in the WAL (secure_delete covers the main file).
func (e *Embedded) Checkpoint(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	db, err := e.sqlite()
	if err != nil {
		return err
	}
	// A TRUNCATE checkpoint holds the writer lock while its busy handler waits for readers; a
	// reader that is itself waiting to write (FerretDB updates read, then write, in one
	// transaction) waits for us while we wait for it, and one of the two fails with
	// SQLITE_BUSY when the wait ends. So each attempt waits only briefly (a truncating
	// checkpoint needs a moment without readers; many short tries find one sooner than one
	// long wait), then releases the lock and is retried here. The pool has one connection:
	// everything below runs on conn, which holds it (a statement on db would wait for it).
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("wal checkpoint: %w", err)
	}
	defer conn.Close()
	var ms int
	// The pragma answers with a row: read it.
	if err := conn.QueryRowContext(ctx, `PRAGMA busy_timeout = 50`).Scan(&ms); err != nil {
		return fmt.Errorf("wal checkpoint: %w", err)
	}
	defer func() {
		_ = conn.QueryRowContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = 10000`).Scan(&ms)
	}()
	for attempt := 0; ; attempt++ {
		var busy, logFrames, checkpointed int
		err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &checkpointed)
		if err != nil && !isSQLiteBusy(err) {
			return fmt.Errorf("wal checkpoint: %w", err)
		}
		if err == nil && busy == 0 {
			return nil
		}
		if attempt == 500 {
			return errors.New("wal checkpoint: store stayed busy")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// isSQLiteBusy reports a lock the checkpoint did not get (SQLITE_BUSY or SQLITE_LOCKED).
func isSQLiteBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_LOCKED")
}

// Close stops the store and waits for it to close its files.
func (e *Embedded) Close() {
	e.mu.Lock()
	if e.sqlDB != nil {
		_ = e.sqlDB.Close()
		e.sqlDB = nil
	}
	e.mu.Unlock()
	e.cancel()
	<-e.done
	if strings.HasPrefix(e.uri, "mongodb://%2F") {
		if p, err := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(e.uri, "mongodb://"), "/")); err == nil {
			_ = os.Remove(p)
		}
	}
}
