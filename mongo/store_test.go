package mongo

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

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
