package mongo

import (
	"context"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// openTest opens a fresh embedded store in a temp dir.
func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Database: "consentforms", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func TestAuditAppendAndList(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := s.Audit.Append(ctx,
		tenants.AuditEntry{Time: t0, TenantID: "a", Actor: "key:1", Action: tenants.ActionSubmissionAccepted},
		tenants.AuditEntry{Time: t0.Add(time.Second), TenantID: "b", Actor: "key:2", Action: tenants.ActionSubmissionAccepted},
		tenants.AuditEntry{Time: t0.Add(2 * time.Second), TenantID: "a", Actor: "key:1", Action: tenants.ActionConsentGranted})
	if err != nil {
		t.Fatal(err)
	}
	once := tenants.AuditEntry{ID: "expired:x", Time: t0.Add(3 * time.Second), TenantID: "a", Actor: "system", Action: tenants.ActionConsentExpired}
	for i := 0; i < 2; i++ {
		if err := s.Audit.Append(ctx, once); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Audit.List(ctx, "a", tenants.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Action != tenants.ActionConsentExpired || all[2].Action != tenants.ActionSubmissionAccepted {
		t.Fatalf("tenant a: %+v", all)
	}
	got, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionConsentGranted})
	if err != nil || len(got) != 1 {
		t.Fatalf("filter by action: %+v %v", got, err)
	}
	got, err = s.Audit.List(ctx, "", tenants.AuditFilter{Limit: 2, Skip: 1})
	if err != nil || len(got) != 2 || got[0].TenantID != "a" || got[1].TenantID != "b" {
		t.Fatalf("all tenants paged: %+v %v", got, err)
	}
	got, err = s.Audit.List(ctx, "b", tenants.AuditFilter{From: t0.Add(500 * time.Millisecond), To: t0.Add(2 * time.Second)})
	if err != nil || len(got) != 1 {
		t.Fatalf("time range: %+v %v", got, err)
	}
}

func TestCountsAndConsentStats(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	now := time.Now().UTC()
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	rec := func(tenant string, kind tenants.Kind, id string, c tenants.Consents) tenants.Ingestion {
		return tenants.Ingestion{Record: tenants.Record{ID: tenants.RecordID(tenant, kind, id), TenantID: tenant,
			Kind: kind, PublicID: id, CreatedAt: now, Consents: c}}
	}
	g := func(d *time.Time) tenants.Consent { return tenants.Consent{Status: tenants.StatusGranted, Deadline: d} }
	ins := []tenants.Ingestion{
		rec("a", tenants.KindFormSubmission, "1", tenants.Consents{PrimaryPurpose: g(&future), GeneralContactEmail: g(nil)}),
		rec("a", tenants.KindFormSubmission, "2", tenants.Consents{PrimaryPurpose: g(&past),
			GeneralContactEmail: tenants.Consent{Status: tenants.StatusRevoked}}),
		rec("a", tenants.KindFormSubmission, "2", tenants.Consents{}), // a repeat: not counted
		rec("a", tenants.KindPhoneCallTask, "3", tenants.Consents{}),
		rec("b", tenants.KindFormSubmission, "1", tenants.Consents{}),
	}
	errs := s.IngestBatch(ctx, ins)
	if errs[0] != nil || errs[1] != nil || errs[2] != tenants.ErrConflict || errs[3] != nil || errs[4] != nil {
		t.Fatalf("ingest: %v", errs)
	}
	for _, c := range []struct {
		tenant string
		kind   tenants.Kind
		want   int64
	}{{"a", tenants.KindFormSubmission, 2}, {"a", tenants.KindPhoneCallTask, 1}, {"a", tenants.KindCanvassing, 0}, {"b", tenants.KindFormSubmission, 1}, {"c", tenants.KindFormSubmission, 0}} {
		if n, err := s.Records.Count(ctx, c.tenant, c.kind); err != nil || n != c.want {
			t.Errorf("Count(%s, %s) = %d, %v; want %d", c.tenant, c.kind, n, err, c.want)
		}
	}
	st, err := s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[tenants.ConsentStatus]int64{
		"primaryPurpose":      {tenants.StatusGranted: 1, tenants.StatusExpired: 1},
		"generalContactEmail": {tenants.StatusGranted: 1, tenants.StatusRevoked: 1},
		"generalContactPhone": {tenants.StatusNotGranted: 2},
	}
	for name, m := range want {
		for status, n := range m {
			if st[name][status] != n {
				t.Errorf("%s %s = %d, want %d (all: %v)", name, status, st[name][status], n, st)
			}
		}
	}
}

// TestForgetPerson: handled references leave a person's lookup, and the lookup goes once empty
// (the embedded store ignores $pull with $in, so this must not rely on it).
func TestForgetPerson(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	add := func(ids ...string) {
		var refs []tenants.PersonRef
		for _, id := range ids {
			refs = append(refs, tenants.PersonRef{TenantID: "t", Hash: "h", Kind: tenants.KindFormSubmission, RecordID: id})
		}
		if err := s.People.AddRefs(ctx, refs); err != nil {
			t.Fatal(err)
		}
	}
	ref := func(id string) string { return tenants.Ref(tenants.KindFormSubmission, id) }
	add("1", "2", "3")
	if err := s.People.Forget(ctx, "t", "h", []string{ref("1"), ref("3")}, false); err != nil {
		t.Fatal(err)
	}
	if refs, _ := s.People.Refs(ctx, "t", "h"); len(refs) != 1 || refs[0] != ref("2") {
		t.Fatalf("after forgetting 1 and 3: %v", refs)
	}
	if err := s.People.Forget(ctx, "t", "h", []string{ref("2")}, false); err != nil {
		t.Fatal(err)
	}
	if refs, _ := s.People.Refs(ctx, "t", "h"); len(refs) != 0 {
		t.Fatalf("after forgetting all: %v", refs)
	}
	add("4") // a later record of the same person starts a new lookup
	add("5", "4")
	add("6")
	if refs, _ := s.People.Refs(ctx, "t", "h"); len(refs) != 3 {
		t.Fatalf("records added to an existing lookup: %v, want 4, 5, 6 once each", refs)
	}
}
