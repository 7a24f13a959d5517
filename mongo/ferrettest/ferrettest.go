// Package ferrettest runs FerretDB in process for the tests of the MongoDB store: no MongoDB
// server can be installed where the tests run, and FerretDB speaks MongoDB's wire protocol
// over SQLite files. It is imported by tests only, so that FerretDB never reaches the binary.
package ferrettest

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/FerretDB/FerretDB/ferretdb"
	_ "modernc.org/sqlite" // the driver IndexIDs opens FerretDB's files with
)

// Server is FerretDB v1.24 with its SQLite backend, in process, on loopback TCP: the MongoDB
// stand-in of the tests.
type Server struct {
	dir    string
	uri    string
	addr   string
	cancel context.CancelFunc
	done   chan struct{}
}

// Start serves the databases kept in dir (one SQLite file per database) on addr:
// "127.0.0.1:0" for any free port, or a fixed "127.0.0.1:PORT" to start again on the port a
// stopped server used, as a database that comes back does.
func Start(dir, addr string) (*Server, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("ferretdb dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("ferretdb dir: %w", err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: addr},
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
		// Its default logger formats every statement even when the output is discarded, which
		// costs more than the statements: a handler that is never enabled avoids that.
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, fmt.Errorf("start ferretdb: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{dir: abs, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = f.Run(ctx)
	}()
	s.uri = f.MongoDBURI()
	u, err := url.Parse(s.uri)
	if err != nil {
		s.Stop()
		return nil, fmt.Errorf("ferretdb uri: %w", err)
	}
	s.addr = u.Host
	return s, nil
}

// URI is the connection string, mongodb://127.0.0.1:PORT/.
func (s *Server) URI() string { return s.uri }

// Addr is the address the server listens on, 127.0.0.1:PORT.
func (s *Server) Addr() string { return s.addr }

// Stop stops the server and returns once it has closed its connections and its files
// (connected clients are given FerretDB's grace period of a few seconds to go first).
func (s *Server) Stop() {
	s.cancel()
	<-s.done
}

// IndexIDs adds, to every collection table of database, the SQLite index on the expression
// FerretDB's exact-_id lookups query (its own _id index has a different expression, so
// without this every lookup by _id reads the whole table). Call it once the collections
// exist; a benchmark with thousands of documents needs it, the tests do not.
func (s *Server) IndexIDs(ctx context.Context, database string) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.dir, database+".sqlite")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM "_ferretdb_collections"`)
	if err != nil {
		return fmt.Errorf("list collection tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	for _, t := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (_ferretdb_sjson->'$._id')`, t+"_by_id", t)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("index %s: %w", t, err)
		}
	}
	return nil
}
