package sqlite_test

import (
	"context"
	"testing"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/sqlite/sqlitetest"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/storetest"
)

// open opens a fresh store in a temp dir, seeded with a migrated store's files (the
// migrations themselves are tested from an empty dir in files_test.go and matchkeys16_test.go).
func open(t *testing.T) tenants.Stores {
	t.Helper()
	dir := t.TempDir()
	if err := sqlitetest.Seed(dir); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(context.Background(), sqlite.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.Stores()
}

func TestContract(t *testing.T) { storetest.Run(t, open) }
