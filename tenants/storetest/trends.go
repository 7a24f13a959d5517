package storetest

import (
	"maps"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var trendTests = map[string]func(t *testing.T, open Open){
	"consent stats count live records, anonymised apart": testLiveConsentStats,
	"records created per day":                            testCreatedPerDay,
	"general-contact consents expiring per day":          testExpiringPerDay,
	"list totals, up to a bound":                         testCountUpTo,
}

// testLiveConsentStats: an anonymised record with a granted consent is not counted as granted
// (nobody may be contacted through it) but as anonymised.
func testLiveConsentStats(t *testing.T, open Open) {
	s := open(t)
	live := record("a", tenants.KindFormSubmission, "live", 0)
	live.Consents.GeneralContactEmail = granted(nil)
	erased := record("a", tenants.KindFormSubmission, "erased", 1)
	erased.Consents.GeneralContactEmail = granted(nil)
	erased.AnonymisedAt = ptr(t0.Add(time.Minute))
	ingest(t, s, live, erased)
	st, err := s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := tenants.ConsentStats{
		PrimaryPurpose:      tenants.StatusCounts{NotGranted: 1},
		GeneralContactEmail: tenants.StatusCounts{Granted: 1},
		GeneralContactPhone: tenants.StatusCounts{NotGranted: 1},
		Anonymised:          1,
	}
	if st != want {
		t.Errorf("ConsentStats = %+v, want %+v", st, want)
	}
}

func testCreatedPerDay(t *testing.T, open Open) {
	s := open(t)
	day := 24 * 60 * 60
	ingest(t, s,
		record("a", tenants.KindFormSubmission, "d0-a", 0), record("a", tenants.KindFormSubmission, "d0-b", 60),
		record("a", tenants.KindFormSubmission, "d1", day), record("a", tenants.KindFormSubmission, "d5", 5*day),
		record("a", tenants.KindCanvassing, "other-kind", 0), record("b", tenants.KindFormSubmission, "other-tenant", 0))
	from, to := tenants.Day(t0), tenants.Day(t0).AddDate(0, 0, 5)
	got, err := s.Records.CreatedPerDay(ctx, "a", tenants.KindFormSubmission, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := map[time.Time]int64{from: 2, from.AddDate(0, 0, 1): 1}
	if !maps.Equal(got, want) {
		t.Errorf("CreatedPerDay = %v, want %v (the sixth day is past the range)", got, want)
	}
}

func testExpiringPerDay(t *testing.T, open Open) {
	s := open(t)
	in := func(days int) *time.Time { return ptr(t0.AddDate(0, 0, days)) }
	mk := func(id string, kind tenants.Kind, c tenants.Consent) tenants.Record {
		r := record("a", kind, id, 0)
		r.Consents.GeneralContactEmail = c
		return r
	}
	erased := mk("erased", tenants.KindFormSubmission, granted(in(2)))
	erased.AnonymisedAt = ptr(t0)
	ingest(t, s,
		mk("in-2", tenants.KindFormSubmission, granted(in(2))), mk("in-2-call", tenants.KindPhoneCallTask, granted(in(2))),
		mk("in-9", tenants.KindCanvassing, granted(in(9))), mk("in-120", tenants.KindFormSubmission, granted(in(120))),
		mk("revoked", tenants.KindFormSubmission, tenants.Consent{Status: tenants.StatusRevoked, Deadline: in(3)}),
		mk("forever", tenants.KindFormSubmission, granted(nil)), erased)
	got, err := s.Records.ExpiringPerDay(ctx, "a", tenants.ConsentGeneralContactEmail, t0, t0.AddDate(0, 0, 90))
	if err != nil {
		t.Fatal(err)
	}
	want := map[time.Time]int64{tenants.Day(*in(2)): 2, tenants.Day(*in(9)): 1}
	if !maps.Equal(got, want) {
		t.Errorf("ExpiringPerDay = %v, want %v", got, want)
	}
	if got, err := s.Records.ExpiringPerDay(ctx, "a", tenants.ConsentGeneralContactPhone, t0, t0.AddDate(0, 0, 90)); err != nil || len(got) != 0 {
		t.Errorf("phone: %v, %v; want none", got, err)
	}
}

func testCountUpTo(t *testing.T, open Open) {
	s := open(t)
	statusRecords(t, s)
	at := t0.Add(time.Hour)
	for _, c := range []struct {
		name string
		page tenants.Page
		most int64
		want int64
	}{
		{"all", tenants.Page{Now: at}, 100, 6},
		{"all, bounded", tenants.Page{Now: at}, 3, 3},
		{"one form", tenants.Page{FormID: "petition", Now: at}, 100, 4},
		{"granted primary purpose", tenants.Page{Consent: tenants.ConsentPrimaryPurpose, Status: tenants.StatusGranted, Now: at}, 100, 2},
		{"paging ignored", tenants.Page{Now: at, Cursor: &tenants.Cursor{Time: t0.Add(4 * time.Second), ID: "revoked"}, Limit: 1}, 100, 6},
	} {
		if n, err := s.Records.CountUpTo(ctx, "a", tenants.KindFormSubmission, c.page, c.most); err != nil || n != c.want {
			t.Errorf("%s: CountUpTo = %d, %v; want %d", c.name, n, err, c.want)
		}
	}
}
