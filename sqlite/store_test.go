package sqlite_test

import (
	"context"
	"testing"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/storetest"
)

// open opens a fresh store in a temp dir.
func open(t *testing.T) tenants.Stores {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.Stores()
}

func TestContract(t *testing.T) { storetest.Run(t, open) }
