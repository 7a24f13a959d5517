package tenants

import (
	"testing"
	"time"
)

func chainOf(n int) []AuditEntry {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var head ChainHead
	out := make([]AuditEntry, n)
	for i := range out {
		out[i] = AuditEntry{ID: string(rune('a' + i)), Time: t0.Add(time.Duration(i) * time.Second), TenantID: "t", Actor: "key:1",
			Action: ActionConsentGranted, RecordIDs: []string{"r"}, Counts: map[string]int{"b": 2, "a": 1}}
		head = head.Link(&out[i])
	}
	return out
}

func walk(entries []AuditEntry, expect ChainHead) (bool, string) {
	w := ChainWalk{Expect: expect}
	for _, e := range entries {
		if !w.Next(e) {
			break
		}
	}
	v := w.Result("t", time.Now(), nil)
	return v.OK, v.BrokenID
}

// TestChainWalk: a whole chain verifies; a changed, removed or swapped entry breaks it where
// a reader would look first.
func TestChainWalk(t *testing.T) {
	whole := chainOf(5)
	edited := chainOf(5)
	edited[2].Detail = "changed"
	swapped := chainOf(5)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	renumbered := chainOf(5)
	renumbered[3].Chain = 9
	msPrecision := chainOf(5)
	msPrecision[4].Time = msPrecision[4].Time.Add(300 * time.Microsecond) // what a store keeps: the same millisecond
	for _, c := range []struct {
		name    string
		entries []AuditEntry
		expect  ChainHead
		ok      bool
		broken  string
	}{
		{"whole", whole, ChainHead{}, true, ""},
		{"the time in milliseconds", msPrecision, ChainHead{}, true, ""},
		{"edited", edited, ChainHead{}, false, "c"},
		{"removed", append(chainOf(5)[:1:1], chainOf(5)[2:]...), ChainHead{}, false, "c"},
		{"first removed", chainOf(5)[1:], ChainHead{}, false, "b"},
		{"swapped", swapped, ChainHead{}, false, "c"},
		{"renumbered", renumbered, ChainHead{}, false, "d"},
		{"end rewritten after a verification", chainOf(5), ChainHead{Chain: 5, Hash: "seen before"}, false, "e"},
	} {
		ok, broken := walk(c.entries, c.expect)
		if ok != c.ok || broken != c.broken {
			t.Errorf("%s: ok %v broken %q, want %v %q", c.name, ok, broken, c.ok, c.broken)
		}
	}
}

// BenchmarkChainLink is what chaining adds to one audit entry's append on the CPU.
func BenchmarkChainLink(b *testing.B) {
	e := AuditEntry{Time: time.Now(), TenantID: "t_abcdefghij", Actor: "key:k1", Action: ActionConsentGranted,
		RecordIDs: []string{"2al2gskm4omvz5hs5wrtyziu7s"}, Detail: "primaryPurpose,generalContactEmail,generalContactPhone",
		RequestID: "0123456789abcdef01234567", ID: "t_abcdefghij:formSubmission:2al2gskm4omvz5hs5wrtyziu7s#consent.granted"}
	var head ChainHead
	for b.Loop() {
		x := e
		head = head.Link(&x)
	}
}
