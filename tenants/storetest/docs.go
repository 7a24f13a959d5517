package storetest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// DocumentedNames are the backticked names of the bullet of docs/STORAGE.md (read from path)
// that begins with prefix ("- Collections:", "- **Tables**:"): the list a store's own test
// compares with the schema it creates, so that the documentation stays true.
func DocumentedNames(t *testing.T, path, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+prefix)
	if !ok {
		t.Fatalf("%s has no bullet %q", path, prefix)
	}
	if end := strings.Index(rest, "\n- "); end >= 0 {
		rest = rest[:end]
	}
	var names []string
	for _, m := range regexp.MustCompile("`([A-Za-z_]+)`").FindAllStringSubmatch(rest, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return slices.Compact(names)
}
