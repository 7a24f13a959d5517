package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants/storetest"
)

// TestDocumentedTables: docs/STORAGE.md lists every table the migrations create, and no other.
func TestDocumentedTables(t *testing.T) {
	s, err := Open(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	rows, err := s.r.QueryContext(context.Background(), `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	documented := storetest.DocumentedNames(t, "../docs/STORAGE.md", "- **Tables**:")
	if !slices.Equal(tables, documented) {
		t.Errorf("the schema has tables %q; docs/STORAGE.md lists %q", tables, documented)
	}
}
