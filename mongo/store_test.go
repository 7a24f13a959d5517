package mongo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/mongo/ferrettest"
	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	mongodrv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// server is the one FerretDB of this test binary; each store gets a database of its own.
var server *ferrettest.Server

var databases atomic.Int64

// admin is the package's own client of the stand-in, which drops each test's database.
var admin *mongodrv.Client

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ferretdb")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server, err = ferrettest.Start(dir, "127.0.0.1:0")
	if err == nil {
		admin, err = mongodrv.Connect(options.Client().ApplyURI(server.URI()))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = admin.Disconnect(context.Background())
	server.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// freshDB names a database no test has used, dropped when the test ends (after the stores
// the test opened on it are closed). FerretDB copies the catalogue of every database it holds
// in a ping, which every store's start sends, so databases left behind made each later start
// of the package slower.
func freshDB(t *testing.T) string {
	db := fmt.Sprintf("test%d", databases.Add(1))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = admin.Database(db).Drop(ctx)
	})
	return db
}

// openStore opens a store on a fresh database of uri, closed when the test ends.
func openStore(t *testing.T, uri, db string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{URI: uri, Database: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

var ctx = context.Background()

// TestReopen opens a store, closes it and opens it again on the same database: the indexes
// exist by then (each is created only when missing) and the data is kept.
func TestReopen(t *testing.T) {
	db := freshDB(t)
	s, err := Open(ctx, Config{URI: server.URI(), Database: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tenants.Insert(ctx, tenants.Tenant{ID: "a", Name: "A", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	ingest(t, s, person("a", tenants.KindFormSubmission, "r1", "k1"))
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, server.URI(), db)
	for col, want := range schema() {
		specs, err := s.db.Collection(col).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, sp := range specs {
			have[sp.Name] = true
		}
		for _, ix := range want {
			if !have[ix.name] {
				t.Errorf("%s: index %s missing (have %v)", col, ix.name, have)
			}
		}
	}
	if got, err := s.Tenants.Get(ctx, "a"); err != nil || got.Name != "A" {
		t.Errorf("tenant after reopening: %+v, %v", got, err)
	}
	if found, err := s.Records.Find(ctx, "a", []string{"k1"}); err != nil || len(found) != 1 {
		t.Errorf("record after reopening: %d, %v", len(found), err)
	}
	ingest(t, s, person("a", tenants.KindFormSubmission, "r2", "k1"))
}

// TestUnreachable stops the server under an open store: Ping and reads answer
// ErrUnavailable within the selection timeout; once the server is back on the same address,
// the same store works again without being reopened.
func TestUnreachable(t *testing.T) {
	dir := t.TempDir()
	srv, err := ferrettest.Start(dir, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() }) // the server of the moment; stopping twice is harmless
	s, err := Open(ctx, Config{URI: srv.URI(), Database: "unreachable"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	ingest(t, s, person("a", tenants.KindFormSubmission, "r1", "k1"))
	srv.Stop()

	start := time.Now()
	pingCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Ping(pingCtx); !errors.Is(err, tenants.ErrUnavailable) {
		t.Errorf("Ping with the server stopped: %v, want ErrUnavailable", err)
	}
	if _, err := s.Records.Get(pingCtx, "a", tenants.KindFormSubmission, "r1"); !errors.Is(err, tenants.ErrUnavailable) {
		t.Errorf("Get with the server stopped: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 2*selectionTimeout {
		t.Errorf("answering unavailable took %v", d)
	}

	srv, err = ferrettest.Start(dir, srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not reconnect within 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1"); err != nil || got.PublicID != "r1" {
		t.Errorf("Get after the server came back: %+v, %v", got, err)
	}
	ingest(t, s, person("a", tenants.KindFormSubmission, "r2", "k1"))
}

// TestTrustedSchema: a CLI command's start (TrustSchema) on a database whose recorded schema
// is this code's lists no indexes, and an index dropped by hand is back after the next start
// of a server (which checks every index), not after a CLI command's.
func TestTrustedSchema(t *testing.T) {
	db := freshDB(t)
	cmds := &commandCounts{n: map[string]int{}}
	open := func(trust bool) (listed int) {
		cmds.take()
		s, err := Open(ctx, Config{URI: server.URI(), Database: db, TrustSchema: trust, monitor: cmds.monitor()})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		cmds.mu.Lock()
		defer cmds.mu.Unlock()
		return cmds.n["listIndexes"]
	}
	hasIndex := func(col, name string) bool {
		specs, err := admin.Database(db).Collection(col).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range specs {
			if sp.Name == name {
				return true
			}
		}
		return false
	}
	if n := open(true); n == 0 {
		t.Fatal("a new database's first start listed no indexes, though nothing was recorded")
	}
	if n := open(true); n != 0 {
		t.Errorf("a CLI start on a database with this schema recorded listed indexes %d times", n)
	}
	if err := admin.Database(db).Collection(colTenants).Indexes().DropOne(ctx, "created"); err != nil {
		t.Fatal(err)
	}
	open(true)
	if hasIndex(colTenants, "created") {
		t.Fatal("a CLI start recreated the index (the test means nothing)")
	}
	if n := open(false); n == 0 || !hasIndex(colTenants, "created") {
		t.Errorf("a server start (%d index lists) did not bring back the dropped index", n)
	}
	// An index an earlier version made, which a later one replaced, goes at a server's start.
	earlier := mongodrv.IndexModel{Keys: bson.D{asc("status"), asc("nextAt")}, Options: options.Index().SetName("status_next")}
	if _, err := admin.Database(db).Collection(colDeliveries).Indexes().CreateOne(ctx, earlier); err != nil {
		t.Fatal(err)
	}
	open(false)
	if hasIndex(colDeliveries, "status_next") || !hasIndex(colDeliveries, "status_next_endpoint") {
		t.Error("the replaced due-deliveries index is still there, or its replacement missing")
	}
}
