package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var auditTests = map[string]func(t *testing.T, open Open){
	"order, filters and pages": testAuditList,
	"an id appends once":       testAuditIdempotent,
	"streams":                  testAuditEach,
	"streams a long log whole": testAuditEachLong,
}

// auditFixture appends, in this order: a1..a5 of tenant a and b1 of tenant b. a2 and a3 share
// a time; a3 was appended later, so it lists first.
func auditFixture(t *testing.T, s tenants.Stores) {
	t.Helper()
	e := func(id string, tenant string, second int, actor, action string) tenants.AuditEntry {
		return tenants.AuditEntry{Time: t0.Add(sec(second)), TenantID: tenant, Actor: actor, Action: action,
			RecordIDs: []string{id}, Detail: id, Counts: map[string]int{"x": second}, Subject: "abc", RequestID: "req-" + id}
	}
	must(t, s.Audit.Append(ctx,
		e("a1", "a", 1, "key:1", tenants.ActionSubmissionAccepted),
		e("a2", "a", 2, "key:1", tenants.ActionConsentGranted),
		e("b1", "b", 2, "key:2", tenants.ActionSubmissionAccepted)))
	must(t, s.Audit.Append(ctx, e("a3", "a", 2, "staff:u1", tenants.ActionSubmissionAccepted)))
	must(t, s.Audit.Append(ctx, e("a4", "a", 86400+4, "key:1", tenants.ActionGDPRAnonymised),
		e("a5", "a", 86400+5, "system", tenants.ActionConsentExpired)))
}

func details(entries []tenants.AuditEntry) string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Detail
	}
	return fmt.Sprint(out)
}

func testAuditList(t *testing.T, open Open) {
	s := open(t)
	auditFixture(t, s)
	day := t0.Add(24 * time.Hour)
	for _, c := range []struct {
		name string
		f    tenants.AuditFilter
		want string
	}{
		{"newest first, ties in reverse order of append", tenants.AuditFilter{}, "[a5 a4 a3 a2 a1]"},
		{"action", tenants.AuditFilter{Action: tenants.ActionSubmissionAccepted}, "[a3 a1]"},
		{"actor", tenants.AuditFilter{Actor: "key:1"}, "[a4 a2 a1]"},
		{"actor and action, paged", tenants.AuditFilter{Actor: "key:1", Action: tenants.ActionSubmissionAccepted, Limit: 1}, "[a1]"},
		{"from (inclusive)", tenants.AuditFilter{From: t0.Add(sec(2))}, "[a5 a4 a3 a2]"},
		{"to (exclusive)", tenants.AuditFilter{To: t0.Add(sec(2))}, "[a1]"},
		{"a day", tenants.AuditFilter{From: t0, To: day}, "[a3 a2 a1]"},
	} {
		got, err := s.Audit.List(ctx, "a", c.f)
		if err != nil || details(got) != c.want {
			t.Errorf("%s: List(a) = %s, %v; want %s", c.name, details(got), err, c.want)
		}
	}
	testAuditCursor(t, s)
	got, err := s.Audit.List(ctx, "b", tenants.AuditFilter{})
	if err != nil || details(got) != "[b1]" {
		t.Errorf("List(b) = %s, %v", details(got), err)
	}
	if e := got[0]; e.TenantID != "b" || e.Actor != "key:2" || e.RecordIDs[0] != "b1" || e.Counts["x"] != 2 ||
		e.Subject != "abc" || e.RequestID != "req-b1" || !e.Time.Equal(t0.Add(sec(2))) || e.ID == "" {
		t.Errorf("entry read back: %+v", e)
	}
	all, err := s.Audit.ListAll(ctx, tenants.AuditFilter{Action: tenants.ActionSubmissionAccepted})
	if err != nil || details(all) != "[a3 b1 a1]" {
		t.Errorf("ListAll = %s, %v; want a3 b1 a1", details(all), err)
	}
}

func testAuditIdempotent(t *testing.T, open Open) {
	s := open(t)
	once := tenants.AuditEntry{ID: "expired:x", Time: t0, TenantID: "a", Actor: "system", Action: tenants.ActionConsentExpired, Detail: "first"}
	for i := 0; i < 2; i++ {
		e := once
		e.Detail = fmt.Sprint("try ", i)
		must(t, s.Audit.Append(ctx, e, tenants.AuditEntry{Time: t0, TenantID: "a", Actor: "system", Action: "x", Detail: "other"}))
	}
	got, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil || len(got) != 1 || got[0].ID != "expired:x" || got[0].Detail != "try 0" {
		t.Errorf("entries with id expired:x = %+v, %v; want the first only", got, err)
	}
	if n := auditCount(t, s, "a", "x"); n != 2 {
		t.Errorf("entries without an id = %d, want 2 (each appended)", n)
	}
}

func testAuditEach(t *testing.T, open Open) {
	s := open(t)
	auditFixture(t, s)
	var seen []tenants.AuditEntry
	must(t, s.Audit.Each(ctx, "a", tenants.AuditFilter{Actor: "key:1"}, func(e tenants.AuditEntry) error {
		seen = append(seen, e)
		return nil
	}))
	if details(seen) != "[a4 a2 a1]" {
		t.Errorf("Each(a) = %s", details(seen))
	}
	seen = nil
	stop := fmt.Errorf("stop")
	err := s.Audit.EachAll(ctx, tenants.AuditFilter{}, func(e tenants.AuditEntry) error {
		seen = append(seen, e)
		if len(seen) == 4 {
			return stop
		}
		return nil
	})
	if err != stop || details(seen) != "[a5 a4 a3 b1]" {
		t.Errorf("EachAll = %s, %v; want a5 a4 a3 b1, then the callback's error", details(seen), err)
	}
}

// testAuditEachLong: a stream longer than any page a store reads at once returns every entry
// once, in order, also where many entries share a time (as a batch of submissions does).
func testAuditEachLong(t *testing.T, open Open) {
	s := open(t)
	const n = 4321
	entries := make([]tenants.AuditEntry, n)
	for i := range entries {
		// 100 entries per second: ties at every page boundary a store might choose.
		entries[i] = tenants.AuditEntry{Time: t0.Add(sec(i / 100)), TenantID: "a", Actor: "key:1",
			Action: tenants.ActionSubmissionAccepted, Detail: fmt.Sprint(i)}
	}
	for i := 0; i < n; i += 1000 {
		must(t, s.Audit.Append(ctx, entries[i:min(n, i+1000)]...))
	}
	next := n - 1
	must(t, s.Audit.Each(ctx, "a", tenants.AuditFilter{}, func(e tenants.AuditEntry) error {
		if e.Detail != fmt.Sprint(next) {
			return fmt.Errorf("entry %s where %d was due", e.Detail, next)
		}
		next--
		return nil
	}))
	if next != -1 {
		t.Errorf("the stream ended before entry %d", next)
	}
	var got []tenants.AuditEntry
	first, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Limit: 10})
	must(t, err)
	tenth := &tenants.Cursor{Time: first[9].Time, ID: first[9].ID}
	must(t, s.Audit.Each(ctx, "a", tenants.AuditFilter{Cursor: tenth, Limit: 2500}, func(e tenants.AuditEntry) error {
		got = append(got, e)
		return nil
	}))
	if len(got) != 2500 || got[0].Detail != fmt.Sprint(n-11) || got[2499].Detail != fmt.Sprint(n-2510) {
		t.Errorf("after the 10th, Limit 2500: %d entries from %s to %s", len(got), got[0].Detail, got[len(got)-1].Detail)
	}
}

// testAuditCursor: a page starts beside an entry, older or newer, through ties of time, under
// a filter, and beside an entry that is gone (by its time).
func testAuditCursor(t *testing.T, s tenants.Stores) {
	t.Helper()
	all, err := s.Audit.List(ctx, "a", tenants.AuditFilter{})
	must(t, err)
	at := map[string]*tenants.Cursor{}
	for _, e := range all {
		at[e.Detail] = &tenants.Cursor{Time: e.Time, ID: e.ID}
	}
	newer := func(c *tenants.Cursor) *tenants.Cursor { n := *c; n.Newer = true; return &n }
	gone := &tenants.Cursor{Time: t0.Add(sec(2)), ID: "gone"}
	for _, c := range []struct {
		name string
		f    tenants.AuditFilter
		want string
	}{
		{"older than a4", tenants.AuditFilter{Cursor: at["a4"], Limit: 2}, "[a3 a2]"},
		{"older than a3, through a tie of time", tenants.AuditFilter{Cursor: at["a3"], Limit: 2}, "[a2 a1]"},
		{"older than the oldest", tenants.AuditFilter{Cursor: at["a1"], Limit: 2}, "[]"},
		{"newer than a2, closest first, listed newest first", tenants.AuditFilter{Cursor: newer(at["a2"]), Limit: 2}, "[a4 a3]"},
		{"newer than a1", tenants.AuditFilter{Cursor: newer(at["a1"]), Limit: 1}, "[a2]"},
		{"newer than the newest", tenants.AuditFilter{Cursor: newer(at["a5"]), Limit: 2}, "[]"},
		{"newer, no limit", tenants.AuditFilter{Cursor: newer(at["a3"])}, "[a5 a4]"},
		{"older, filtered", tenants.AuditFilter{Actor: "key:1", Cursor: at["a4"]}, "[a2 a1]"},
		{"older, in a date range", tenants.AuditFilter{From: t0.Add(sec(2)), Cursor: at["a4"]}, "[a3 a2]"},
		{"older than a gone entry: by its time", tenants.AuditFilter{Cursor: gone}, "[a1]"},
		{"newer than a gone entry: by its time", tenants.AuditFilter{Cursor: newer(gone)}, "[a5 a4]"},
	} {
		got, err := s.Audit.List(ctx, "a", c.f)
		if err != nil || details(got) != c.want {
			t.Errorf("%s: List(a) = %s, %v; want %s", c.name, details(got), err, c.want)
		}
	}
}
