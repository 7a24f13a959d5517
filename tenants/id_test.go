package tenants

import (
	"testing"
	"time"
)

// TestNewIDSortsByCreation: generated public ids are 26 lowercase base32 characters, unique,
// and one made later sorts after one made earlier, so the store's index of ids grows at its end.
func TestNewIDSortsByCreation(t *testing.T) {
	seen := map[string]bool{}
	prev := NewID("")
	for range 200 {
		time.Sleep(time.Millisecond / 4)
		id := NewID("")
		if len(id) != 26 || seen[id] {
			t.Fatalf("id %q: length %d, seen before %v", id, len(id), seen[id])
		}
		for _, r := range id {
			if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
				t.Fatalf("id %q has %q", id, r)
			}
		}
		seen[id] = true
		if id[:9] < prev[:9] {
			t.Errorf("%q made after %q sorts before it", id, prev)
		}
		prev = id
	}
}

// TestNewIDPrefix: a prefix leads the id unchanged.
func TestNewIDPrefix(t *testing.T) {
	id := NewID("u_")
	if len(id) != 28 || id[:2] != "u_" {
		t.Fatalf("NewID(\"u_\") = %q", id)
	}
}
