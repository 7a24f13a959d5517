package mongo

import (
	"maps"
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants/storetest"
)

// TestDocumentedCollections: docs/STORAGE.md lists every collection the store creates, and no
// other.
func TestDocumentedCollections(t *testing.T) {
	created := slices.Sorted(maps.Keys(schema()))
	documented := storetest.DocumentedNames(t, "../docs/STORAGE.md", "- Collections:")
	if !slices.Equal(created, documented) {
		t.Errorf("the store creates %q; docs/STORAGE.md lists %q", created, documented)
	}
}
