package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var recordTests = map[string]func(t *testing.T, open Open){
	"round trip":                    testRecordRoundTrip,
	"repeated id stores nothing":    testRepeat,
	"concurrent repeats store once": testConcurrentRepeats,
	"find through match keys":       testFind,
	"list pages and filters":        testList,
	"count and consent stats":       testCountAndStats,
}

// full is a record with every field set, custom fields of every JSON shape included.
func full(tenant, id string) tenants.Record {
	r := record(tenant, tenants.KindFormSubmission, id, 0, "k-email", "k-phone")
	r.Contact = tenants.Contact{Email: ptr("ada@example.org"), PhoneNumber: ptr("+4915112345678"), FirstName: ptr("Ada"),
		LastName: ptr("Lovelace"), NamePrefix: ptr("Dr")}
	r.Address = tenants.Address{Street: ptr("Main St"), HouseNumber: ptr("1a"), City: ptr("Berlin"), Postcode: ptr("10115")}
	r.Consents = tenants.Consents{
		PrimaryPurpose: tenants.Consent{Status: tenants.StatusGranted, GrantedAt: ptr(t0), Deadline: ptr(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)),
			Source: ptr("web"), IPAddress: ptr("203.0.113.9"), Timestamp: ptr("2026-11-21T12:00:00+01:00")},
		GeneralContactEmail: tenants.Consent{Status: tenants.StatusRevoked, GrantedAt: ptr(t0), RevokedAt: ptr(t0.Add(sec(1))), RevokedBy: "brevo"},
		GeneralContactPhone: tenants.Consent{Status: tenants.StatusNotGranted},
	}
	r.Payload = map[string]any{"a.b": "dot", "$x": "dollar", "nested": map[string]any{"list": []any{[]any{1.5, "x"}, nil, true}},
		"big": 12345678901.0, "empty": map[string]any{}, "unicode": "Grüße ✓"}
	r.Fields = map[string]any{"document_ref": "D-1", "notes": "called twice"}
	return r
}

func testRecordRoundTrip(t *testing.T, open Open) {
	s := open(t)
	want := full("a", "r1")
	ingest(t, s, want)
	got, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%#v\nwant\n%#v", got, want)
	}
	for _, miss := range []struct {
		tenant string
		kind   tenants.Kind
		id     string
	}{{"b", tenants.KindFormSubmission, "r1"}, {"a", tenants.KindCanvassing, "r1"}, {"a", tenants.KindFormSubmission, "r2"}} {
		if _, err := s.Records.Get(ctx, miss.tenant, miss.kind, miss.id); !errors.Is(err, tenants.ErrNotFound) {
			t.Errorf("Get%v: %v, want ErrNotFound", miss, err)
		}
	}
}

func testRepeat(t *testing.T, open Open) {
	s := open(t)
	first := full("a", "r1")
	ingest(t, s, first)
	again := record("a", tenants.KindFormSubmission, "r1", 60, "k-other")
	stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: again, Audit: []tenants.AuditEntry{accepted(again)}})
	if err != nil || stored {
		t.Fatalf("repeat = %v, %v; want not stored, no error", stored, err)
	}
	if got, _ := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1"); !reflect.DeepEqual(got, first) {
		t.Errorf("the repeat changed the record: %+v", got)
	}
	if found, _ := s.Records.Find(ctx, "a", []string{"k-other"}); len(found) != 0 {
		t.Errorf("the repeat's match key was kept: %v", ids(found))
	}
	if n := auditCount(t, s, "a", tenants.ActionRecordCreated); n != 1 {
		t.Errorf("audit entries = %d, want the first ingestion's only", n)
	}
	// The same public id under another tenant or kind is another record.
	ingest(t, s, record("b", tenants.KindFormSubmission, "r1", 0), record("a", tenants.KindCanvassing, "r1", 0))
}

func testConcurrentRepeats(t *testing.T, open Open) {
	s := open(t)
	const n = 20
	var wg sync.WaitGroup
	results := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := record("a", tenants.KindFormSubmission, "same", i, fmt.Sprintf("k%d", i))
			results[i], errs[i] = s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)}})
		}()
	}
	wg.Wait()
	stored := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("ingest %d: %v", i, errs[i])
		}
		if results[i] {
			stored++
		}
	}
	if stored != 1 {
		t.Errorf("%d of %d identical ids stored, want 1", stored, n)
	}
	if c, _ := s.Records.Count(ctx, "a", tenants.KindFormSubmission); c != 1 {
		t.Errorf("Count = %d, want 1", c)
	}
	if n := auditCount(t, s, "a", tenants.ActionRecordCreated); n != 1 {
		t.Errorf("audit entries = %d, want 1", n)
	}
}

func testFind(t *testing.T, open Open) {
	s := open(t)
	ingest(t, s,
		record("a", tenants.KindFormSubmission, "f1", 0, "ke", "kp"),
		record("a", tenants.KindFormSubmission, "f2", 1, "ke"),
		record("a", tenants.KindCanvassing, "c1", 2, "kp"),
		record("a", tenants.KindPhoneCallTask, "p1", 3, "kp", "kx"),
		record("a", tenants.KindDigitisation, "d1", 4, "ky"),
		record("b", tenants.KindFormSubmission, "b1", 5, "ke", "kp"),
	)
	for _, c := range []struct {
		keys  []string
		kinds []tenants.Kind
		want  string
	}{
		{[]string{"ke"}, nil, "[f1 f2]"},
		{[]string{"ke", "kp"}, nil, "[c1 f1 f2 p1]"},
		{[]string{"kp"}, []tenants.Kind{tenants.KindFormSubmission, tenants.KindCanvassing}, "[c1 f1]"},
		{[]string{"kz"}, nil, "[]"},
		{nil, nil, "[]"},
	} {
		got, err := s.Records.Find(ctx, "a", c.keys, c.kinds...)
		if err != nil || setOf(got) != c.want {
			t.Errorf("Find(a, %v, %v) = %v, %v; want %s", c.keys, c.kinds, setOf(got), err, c.want)
		}
		if len(got) != len(setOfSlice(got)) {
			t.Errorf("Find(a, %v) returned a record twice: %v", c.keys, ids(got))
		}
	}
	got, err := s.Records.Find(ctx, "b", []string{"ke", "kx", "ky"})
	if err != nil || setOf(got) != "[b1]" {
		t.Errorf("tenant b finds %v, %v; want only its own b1", setOf(got), err)
	}
}

func setOfSlice(recs []tenants.Record) map[string]bool {
	m := map[string]bool{}
	for _, r := range recs {
		m[r.ID] = true
	}
	return m
}

// statusRecords stores, for tenant a, records whose primary-purpose consent reads each status
// at t0+1h, and one record of tenant b.
func statusRecords(t *testing.T, s tenants.Stores) {
	t.Helper()
	past, future := t0.Add(30*time.Minute), t0.Add(2*time.Hour)
	mk := func(id string, offset int, form string, c tenants.Consent) tenants.Record {
		r := record("a", tenants.KindFormSubmission, id, offset)
		r.FormID = form
		r.Consents.PrimaryPurpose = c
		return r
	}
	ingest(t, s,
		mk("granted-forever", 0, "petition", granted(nil)),
		mk("granted-until-later", 1, "event", granted(&future)),
		mk("expired-by-deadline", 2, "petition", granted(&past)),
		mk("expired-stored", 3, "event", tenants.Consent{Status: tenants.StatusExpired, Deadline: &past}),
		mk("revoked", 4, "petition", tenants.Consent{Status: tenants.StatusRevoked, RevokedAt: ptr(t0)}),
		mk("never", 5, "petition", tenants.Consent{}),
		record("b", tenants.KindFormSubmission, "other-tenant", 6),
		record("a", tenants.KindCanvassing, "other-kind", 7),
	)
}

func testList(t *testing.T, open Open) {
	s := open(t)
	statusRecords(t, s)
	at := t0.Add(time.Hour)
	for _, c := range []struct {
		name string
		page tenants.Page
		want []string
	}{
		{"all, newest first", tenants.Page{}, []string{"never", "revoked", "expired-stored", "expired-by-deadline", "granted-until-later", "granted-forever"}},
		{"one form", tenants.Page{FormID: "event"}, []string{"expired-stored", "granted-until-later"}},
		{"granted", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusGranted}, []string{"granted-until-later", "granted-forever"}},
		{"expired, stored or by deadline", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusExpired}, []string{"expired-stored", "expired-by-deadline"}},
		{"revoked", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusRevoked}, []string{"revoked"}},
		{"not granted", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusNotGranted}, []string{"never"}},
		{"not granted on any consent", tenants.Page{Status: tenants.StatusNotGranted, Limit: 3}, []string{"never", "revoked", "expired-stored"}},
		{"form and status, paged", tenants.Page{FormID: "petition", Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusExpired, Limit: 1}, []string{"expired-by-deadline"}},
	} {
		c.page.Now = at
		got, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, c.page)
		if err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(c.want) {
			t.Errorf("%s: List = %v, %v; want %v", c.name, ids(got), err, c.want)
		}
	}
	testListCursor(t, s, at)
	got, err := s.Records.List(ctx, "b", tenants.KindFormSubmission, tenants.Page{Now: at})
	if err != nil || fmt.Sprint(ids(got)) != "[other-tenant]" {
		t.Errorf("tenant b lists %v, %v", ids(got), err)
	}
}

func testCountAndStats(t *testing.T, open Open) {
	s := open(t)
	statusRecords(t, s)
	for _, c := range []struct {
		tenant string
		kind   tenants.Kind
		want   int64
	}{{"a", tenants.KindFormSubmission, 6}, {"a", tenants.KindCanvassing, 1}, {"a", tenants.KindPhoneCallTask, 0}, {"b", tenants.KindFormSubmission, 1}, {"c", tenants.KindFormSubmission, 0}} {
		if n, err := s.Records.Count(ctx, c.tenant, c.kind); err != nil || n != c.want {
			t.Errorf("Count(%s, %s) = %d, %v; want %d", c.tenant, c.kind, n, err, c.want)
		}
	}
	st, err := s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := tenants.ConsentStats{
		PrimaryPurpose:      tenants.StatusCounts{Granted: 2, Expired: 2, Revoked: 1, NotGranted: 1},
		GeneralContactEmail: tenants.StatusCounts{NotGranted: 6},
		GeneralContactPhone: tenants.StatusCounts{NotGranted: 6},
	}
	if st != want {
		t.Errorf("ConsentStats = %+v, want %+v", st, want)
	}
}

// auditCount counts tenant's entries with action.
func auditCount(t *testing.T, s tenants.Stores, tenant, action string) int {
	t.Helper()
	entries, err := s.Audit.List(ctx, tenant, tenants.AuditFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// testListCursor: a page starts beside a record, older or newer, through ties of time, under
// a filter, and beside a record that is gone (by its time).
func testListCursor(t *testing.T, s tenants.Stores, at time.Time) {
	t.Helper()
	// Two more records at the time of "revoked": ties that a page boundary may fall between.
	ingest(t, s, record("a", tenants.KindFormSubmission, "tie-1", 4), record("a", tenants.KindFormSubmission, "tie-2", 4))
	all, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, tenants.Page{Now: at})
	must(t, err)
	if len(all) != 8 {
		t.Fatalf("List = %v", ids(all))
	}
	// Walk the list one row at a time both ways: every row once, in the same order.
	var walked []string
	var c *tenants.Cursor
	for range 10 {
		page, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, tenants.Page{Now: at, Cursor: c, Limit: 1})
		must(t, err)
		if len(page) == 0 {
			break
		}
		walked = append(walked, page[0].PublicID)
		c = &tenants.Cursor{Time: page[0].CreatedAt, ID: page[0].PublicID}
	}
	if fmt.Sprint(walked) != fmt.Sprint(ids(all)) {
		t.Errorf("walked older one by one: %v; the list is %v", walked, ids(all))
	}
	var back []string
	c.Newer = true
	for range 10 {
		page, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, tenants.Page{Now: at, Cursor: c, Limit: 1})
		must(t, err)
		if len(page) == 0 {
			break
		}
		back = append([]string{page[0].PublicID}, back...)
		c = &tenants.Cursor{Time: page[0].CreatedAt, ID: page[0].PublicID, Newer: true}
	}
	if fmt.Sprint(append(back, walked[len(walked)-1])) != fmt.Sprint(walked) {
		t.Errorf("walked newer one by one: %v; the list is %v", back, walked)
	}
	pos := func(id string, newer bool) *tenants.Cursor {
		for _, r := range all {
			if r.PublicID == id {
				return &tenants.Cursor{Time: r.CreatedAt, ID: id, Newer: newer}
			}
		}
		t.Fatalf("no %s", id)
		return nil
	}
	gone := &tenants.Cursor{Time: t0.Add(2500 * time.Millisecond), ID: "gone"}
	goneNewer := *gone
	goneNewer.Newer = true
	for _, c := range []struct {
		name string
		page tenants.Page
		want []string
	}{
		{"older than never", tenants.Page{Cursor: pos("never", false), Limit: 2}, ids(all)[1:3]},
		{"newer than granted-forever, listed newest first", tenants.Page{Cursor: pos("granted-forever", true), Limit: 2}, []string{"expired-by-deadline", "granted-until-later"}},
		{"older than the oldest", tenants.Page{Cursor: pos("granted-forever", false), Limit: 2}, nil},
		{"newer than the newest", tenants.Page{Cursor: pos("never", true), Limit: 2}, nil},
		{"one form, older", tenants.Page{FormID: "petition", Cursor: pos("expired-stored", false)}, []string{"expired-by-deadline", "granted-forever"}},
		{"a status, newer", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusGranted, Cursor: pos("granted-forever", true)}, []string{"granted-until-later"}},
		{"older than a gone record: by its time", tenants.Page{Cursor: gone, Limit: 2}, []string{"expired-by-deadline", "granted-until-later"}},
		{"newer than a gone record: by its time", tenants.Page{Cursor: &goneNewer, Limit: 1}, []string{"expired-stored"}},
	} {
		c.page.Now = at
		got, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, c.page)
		if err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(c.want) {
			t.Errorf("%s: List = %v, %v; want %v", c.name, ids(got), err, c.want)
		}
	}
}
