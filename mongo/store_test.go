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
	"github.com/consentforms/consentforms/tenants/storetest"
)

// server is the one FerretDB of this test binary; each store gets a database of its own.
var server *ferrettest.Server

var databases atomic.Int64

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ferretdb")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server, err = ferrettest.Start(dir, "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	server.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// freshDB names a database no test has used.
func freshDB() string { return fmt.Sprintf("test%d", databases.Add(1)) }

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

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) tenants.Stores { return openStore(t, server.URI(), freshDB()).Stores() })
}

var ctx = context.Background()

// TestReopen opens a store, closes it and opens it again on the same database: the indexes
// exist by then (each is created only when missing) and the data is kept.
func TestReopen(t *testing.T) {
	db := freshDB()
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
