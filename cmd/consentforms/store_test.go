package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/mongo/ferrettest"
	"github.com/consentforms/consentforms/tenants"
	mongodrv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/crypto/bcrypt"
)

// mongoURI is the MongoDB stand-in's address when the suite runs against MongoDB
// (CONSENTFORMS_TEST_STORE=mongo); empty on the embedded store.
var mongoURI string

func TestMain(m *testing.M) {
	// Passwords are hashed at bcrypt's lowest cost: nothing asserted depends on the cost.
	tenants.PasswordCost = bcrypt.MinCost
	if os.Getenv("CONSENTFORMS_TEST_STORE") != "mongo" {
		code := m.Run()
		stopChromium()
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "ferret")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv, err := ferrettest.Start(dir, "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the MongoDB stand-in:", err)
		os.Exit(1)
	}
	mongoURI = srv.URI()
	mongoAdmin, err = mongodrv.Connect(options.Client().ApplyURI(mongoURI))
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect to the MongoDB stand-in:", err)
		os.Exit(1)
	}
	code := m.Run()
	stopChromium()
	_ = mongoAdmin.Disconnect(context.Background())
	srv.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// mongoAdmin is the suite's own client of the MongoDB stand-in, which drops each test's database.
var mongoAdmin *mongodrv.Client

// storeEnv is the environment that points a test server at the suite's store: on MongoDB a
// database of its own, dropped when the test ends (after its servers stopped: cleanups run
// last-registered first); on the embedded store nothing (a fresh data dir is fresh data).
// Dropping keeps the stand-in's catalogue small: FerretDB's ping, which every readiness
// check sends, copies the catalogue of every database it holds.
func storeEnv(t *testing.T) []string {
	if mongoURI == "" {
		return nil
	}
	db := freshDatabase()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = mongoAdmin.Database(db).Drop(ctx)
	})
	return []string{"MONGODB_URI=" + mongoURI, "MONGODB_DATABASE=" + db}
}

func freshDatabase() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "t" + hex.EncodeToString(b)
}

// TestSuiteRunsOnItsStore: the servers of this run use the store the run names, so a pass of
// the suite on MongoDB really is one.
func TestSuiteRunsOnItsStore(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	want := `"store":"sqlite"`
	if mongoURI != "" {
		want = `"store":"mongodb"`
	}
	if log := s.stderr.String(); !strings.Contains(log, want) {
		t.Errorf("the server's log does not say %s:\n%s", want, log)
	}
}
