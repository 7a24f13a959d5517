package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var rightsTests = map[string]func(t *testing.T, open Open){
	"retention settings":                        testRetentionSettings,
	"expiring pages by deadline, never revoked": testExpiring,
	"due records by either basis":               testDue,
	"erase by record id":                        testEraseByID,
}

func testRetentionSettings(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	must(t, s.Tenants.SetRetention(ctx, "a", "2y", tenants.RetentionFromConsentsLapsed))
	got, err := s.Tenants.Get(ctx, "a")
	must(t, err)
	if got.Retention != "2y" || got.RetentionFrom != tenants.RetentionFromConsentsLapsed {
		t.Errorf("tenant retention %q from %q", got.Retention, got.RetentionFrom)
	}
	if b, _ := s.Tenants.Get(ctx, "b"); b.Retention != "" {
		t.Errorf("tenant b retention %q", b.Retention)
	}
	f := tenants.Form{TenantID: "a", FormID: "petition", Name: "P", Open: true, CreatedAt: t0, UpdatedAt: t0,
		Retention: "30d", RetentionFrom: tenants.RetentionFromCreated}
	must(t, s.Forms.Insert(ctx, f))
	f.Retention = "90d"
	must(t, s.Forms.Save(ctx, f))
	got2, err := s.Forms.Get(ctx, "a", "petition")
	must(t, err)
	if got2.Retention != "90d" || got2.RetentionFrom != tenants.RetentionFromCreated {
		t.Errorf("form retention %q from %q", got2.Retention, got2.RetentionFrom)
	}
}

// withEmailDeadline is a record of tenant whose general-contact e-mail consent has status and
// a deadline offset seconds after t0.
func withEmailDeadline(tenant string, kind tenants.Kind, id, form string, status tenants.ConsentStatus, offset int) tenants.Record {
	r := record(tenant, kind, id, 0)
	r.FormID = form
	r.Consents.GeneralContactEmail = tenants.Consent{Status: status, GrantedAt: ptr(t0), Deadline: ptr(t0.Add(sec(offset)))}
	if status == tenants.StatusRevoked {
		r.Consents.GeneralContactEmail.RevokedAt = ptr(t0)
	}
	return r
}

func testExpiring(t *testing.T, open Open) {
	s := open(t)
	var want []string
	var recs []tenants.Record
	for i := range 7 {
		kind := tenants.Kinds()[i%len(tenants.Kinds())]
		id := "g" + string(rune('a'+i))
		// Two share a deadline: the record id breaks the tie.
		recs = append(recs, withEmailDeadline("a", kind, id, "petition", tenants.StatusGranted, 100+10*(i/2*2)))
		want = append(want, id)
	}
	recs = append(recs,
		withEmailDeadline("a", tenants.KindFormSubmission, "revoked", "petition", tenants.StatusRevoked, 120),
		withEmailDeadline("a", tenants.KindFormSubmission, "passed", "petition", tenants.StatusGranted, 10),
		withEmailDeadline("a", tenants.KindFormSubmission, "later", "petition", tenants.StatusGranted, 5000),
		withEmailDeadline("a", tenants.KindFormSubmission, "survey", "survey", tenants.StatusGranted, 110),
		withEmailDeadline("b", tenants.KindFormSubmission, "other", "petition", tenants.StatusGranted, 110))
	gone := withEmailDeadline("a", tenants.KindFormSubmission, "anonymised", "petition", tenants.StatusGranted, 120)
	gone.AnonymisedAt = ptr(t0)
	recs = append(recs, gone)
	nodl := record("a", tenants.KindFormSubmission, "nodeadline", 0)
	nodl.Consents.GeneralContactEmail = granted(nil)
	recs = append(recs, nodl)
	ingest(t, s, recs...)

	q := tenants.ExpiringQuery{Consent: tenants.ConsentGeneralContactEmail, FormID: "petition", After: t0.Add(sec(50)),
		Until: t0.Add(sec(1000)), Limit: 3}
	var got []string
	var last time.Time
	for range 10 {
		page, err := s.Records.Expiring(ctx, "a", q)
		must(t, err)
		for _, r := range page {
			d := *r.Consents.GeneralContactEmail.Deadline
			if d.Before(last) {
				t.Errorf("%s out of deadline order", r.PublicID)
			}
			last = d
			got = append(got, r.PublicID)
		}
		if len(page) < q.Limit {
			break
		}
		l := page[len(page)-1]
		q.Cursor = &tenants.ExpiringCursor{Deadline: *l.Consents.GeneralContactEmail.Deadline, ID: l.ID}
	}
	if slices.Sort(want); !slices.Equal(sorted(got), want) || len(got) != len(want) {
		t.Errorf("pages %v, want each of %v once", got, want)
	}
	all, err := s.Records.Expiring(ctx, "a", tenants.ExpiringQuery{Consent: tenants.ConsentGeneralContactEmail,
		After: t0.Add(sec(50)), Until: t0.Add(sec(1000))})
	must(t, err)
	if !slices.Contains(ids(all), "survey") || slices.Contains(ids(all), "revoked") || len(all) != len(want)+1 {
		t.Errorf("every form: %v", ids(all))
	}
	phone, err := s.Records.Expiring(ctx, "a", tenants.ExpiringQuery{Consent: tenants.ConsentGeneralContactPhone,
		After: t0, Until: t0.Add(sec(10000))})
	must(t, err)
	if len(phone) != 0 {
		t.Errorf("phone: %v", ids(phone))
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func testDue(t *testing.T, open Open) {
	s := open(t)
	old := record("a", tenants.KindFormSubmission, "old", 0)
	young := record("a", tenants.KindFormSubmission, "young", 500)
	canvass := record("a", tenants.KindCanvassing, "canvass", 0)
	canvass.FormID = ""
	lapsed := withEmailDeadline("a", tenants.KindDigitisation, "lapsed", "petition", tenants.StatusGranted, 100)
	lapsed.CreatedAt = t0.Add(sec(400))
	open1 := record("a", tenants.KindFormSubmission, "forever", 1)
	open1.Consents.PrimaryPurpose = granted(nil)
	revoked := withEmailDeadline("a", tenants.KindFormSubmission, "revoked", "petition", tenants.StatusRevoked, 900)
	revoked.CreatedAt = t0.Add(sec(400))
	gone := record("a", tenants.KindFormSubmission, "gone", 0)
	gone.AnonymisedAt = ptr(t0)
	ingest(t, s, old, young, canvass, lapsed, open1, revoked, gone, record("b", tenants.KindFormSubmission, "b-old", 0))

	check := func(q tenants.DueQuery, want ...string) {
		t.Helper()
		got, err := s.Records.Due(ctx, "a", q)
		must(t, err)
		n, err := s.Records.CountDue(ctx, "a", tenants.DueQuery{FormID: q.FormID, From: q.From, Before: q.Before})
		must(t, err)
		if setOf(got) != setOf(recsNamed(want)) || (q.Limit == 0 && n != int64(len(want))) {
			t.Errorf("due %+v: %v (count %d), want %v", q, ids(got), n, want)
		}
	}
	check(tenants.DueQuery{FormID: "petition", From: tenants.RetentionFromCreated, Before: t0.Add(sec(450))},
		"old", "lapsed", "forever", "revoked")
	check(tenants.DueQuery{FormID: "petition", From: tenants.RetentionFromCreated, Before: t0.Add(sec(450)), Limit: 1}, "old")
	check(tenants.DueQuery{FormID: "", From: tenants.RetentionFromCreated, Before: t0.Add(sec(1))}, "canvass")
	// Lapsed: "old" and "young" never had a consent (lapsed when created); "lapsed" at its
	// deadline, t0+100; "revoked" at its revocation, t0; "forever" never.
	check(tenants.DueQuery{FormID: "petition", From: tenants.RetentionFromConsentsLapsed, Before: t0.Add(sec(100))},
		"old", "lapsed", "revoked")
	check(tenants.DueQuery{FormID: "petition", From: tenants.RetentionFromConsentsLapsed, Before: t0.Add(sec(99))}, "old", "revoked")
}

func recsNamed(names []string) []tenants.Record {
	out := make([]tenants.Record, len(names))
	for i, n := range names {
		out[i].PublicID = n
	}
	return out
}

func testEraseByID(t *testing.T, open Open) {
	s := open(t)
	person(t, s)
	bare := record("a", tenants.KindCanvassing, "bare", 0) // no match key
	bare.Contact.FirstName = ptr("Nomatch")
	ingest(t, s, bare)
	erase := func() []tenants.Record {
		// MatchKeys are ignored when RecordIDs are given; none of the named records carries
		// "zz", so a store that looked by match key would erase nothing.
		got, err := s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"zz"},
			RecordIDs: []string{bare.ID, tenants.RecordID("a", tenants.KindFormSubmission, "f2"), tenants.RecordID("b", tenants.KindFormSubmission, "b1")},
			Apply: func(rec *tenants.Record) (bool, error) {
				if rec.AnonymisedAt != nil {
					return false, nil
				}
				return strip(rec)
			}, Audit: auditAs("a", tenants.ActionRetentionAnonymised)})
		must(t, err)
		return got
	}
	if got := erase(); setOf(got) != "[bare f2]" {
		t.Fatalf("erased %v, want bare and f2 only", ids(got))
	}
	if got := erase(); len(got) != 0 {
		t.Errorf("repeat erased %v", ids(got))
	}
	rec, err := s.Records.Get(ctx, "a", tenants.KindCanvassing, "bare")
	must(t, err)
	if rec.Contact.FirstName != nil || rec.AnonymisedAt == nil {
		t.Errorf("bare record %+v", rec)
	}
	f1, _ := s.Records.Find(ctx, "a", []string{"ke"}, tenants.KindFormSubmission)
	if setOf(f1) != "[f1]" {
		t.Errorf("ke still finds %v, want f1 (not named)", ids(f1))
	}
}
