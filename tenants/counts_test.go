package tenants

import (
	"maps"
	"slices"
	"testing"
)

// TestCountsRoundTrip: counts per kind keep their names of docs/API.md §5.4 through Map and
// CountsFrom, and Add files each kind under its own field.
func TestCountsRoundTrip(t *testing.T) {
	var c Counts
	for i, k := range Kinds() {
		c.Add(k, i+1)
	}
	c.Add("bogus", 9)
	want := Counts{FormSubmissions: 1, DigitisationSubmissions: 2, CanvassingSubmissions: 3, PhoneCallTasks: 4}
	if c != want || c.Total() != 10 || c.Plus(c).Total() != 20 {
		t.Fatalf("counts %+v", c)
	}
	if got := CountsFrom(c.Map()); got != c {
		t.Errorf("round trip %+v, want %+v", got, c)
	}
	if keys := slices.Sorted(maps.Keys(c.Map())); !slices.Equal(keys, []string{"canvassingSubmissions", "digitisationSubmissions", "formSubmissions", "phoneCallTasks"}) {
		t.Errorf("keys %v", keys)
	}
	if got := CountKinds([]Record{{Kind: KindCanvassing}, {Kind: KindCanvassing}, {Kind: KindPhoneCallTask}}); got != (Counts{CanvassingSubmissions: 2, PhoneCallTasks: 1}) {
		t.Errorf("CountKinds %+v", got)
	}
}

// TestStatusCounts: a stored status that is none of the four counts as not granted.
func TestStatusCounts(t *testing.T) {
	var s ConsentStats
	for _, name := range ConsentNames() {
		c := s.Of(name)
		for i, st := range ConsentStatuses() {
			c.Add(st, int64(i+1))
		}
		c.Add("", 10)
	}
	for _, name := range ConsentNames() {
		if got := *s.Of(name); got != (StatusCounts{Granted: 1, Expired: 2, Revoked: 3, NotGranted: 14}) || got.Of(StatusRevoked) != 3 {
			t.Errorf("%s: %+v", name, got)
		}
	}
	if s.Of("bogus") != nil {
		t.Error("an unknown consent has counts")
	}
}

// TestConsentsAll: All yields every consent in the order of ConsentNames(), each the one ByName
// returns, and stops when asked.
func TestConsentsAll(t *testing.T) {
	var c Consents
	var names []ConsentName
	for name, con := range c.All() {
		if con != c.ByName(name) {
			t.Errorf("%s: not the record's own consent", name)
		}
		con.Status = StatusRevoked
		names = append(names, name)
	}
	if !slices.Equal(names, ConsentNames()) || c.GeneralContactPhone.Status != StatusRevoked {
		t.Errorf("names %v, consents %+v", names, c)
	}
	for name := range c.All() {
		if name != ConsentPrimaryPurpose {
			t.Fatal("did not stop")
		}
		break
	}
}
