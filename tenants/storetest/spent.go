package storetest

import (
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var spentTokenTests = map[string]func(t *testing.T, open Open){
	"spent once, per tenant":             testSpendOnce,
	"expired spent tokens forgotten":     testSpentTokensPruned,
	"pending consent stored and counted": testPendingStored,
}

// testSpendOnce: a token is spent once; a second Spend reports it spent; another tenant's
// token of the same id is another token.
func testSpendOnce(t *testing.T, open Open) {
	s := open(t)
	if spent, err := s.SpentTokens.Spent(ctx, "a", "t1"); err != nil || spent {
		t.Fatalf("Spent before = %v, %v", spent, err)
	}
	first, err := s.SpentTokens.Spend(ctx, "a", "t1", t0, t0.Add(time.Hour))
	if err != nil || !first {
		t.Fatalf("first Spend = %v, %v; want true", first, err)
	}
	if first, err := s.SpentTokens.Spend(ctx, "a", "t1", t0.Add(time.Second), t0.Add(time.Hour)); err != nil || first {
		t.Errorf("second Spend = %v, %v; want false", first, err)
	}
	if spent, err := s.SpentTokens.Spent(ctx, "a", "t1"); err != nil || !spent {
		t.Errorf("Spent after = %v, %v; want true", spent, err)
	}
	if spent, err := s.SpentTokens.Spent(ctx, "b", "t1"); err != nil || spent {
		t.Errorf("tenant b's Spent = %v, %v; want false", spent, err)
	}
	if first, err := s.SpentTokens.Spend(ctx, "b", "t1", t0, t0.Add(time.Hour)); err != nil || !first {
		t.Errorf("tenant b's Spend = %v, %v; want true", first, err)
	}
}

// testSpentTokensPruned: a spend forgets the tenant's tokens whose links expired before it,
// keeps those still live, and leaves other tenants' alone.
func testSpentTokensPruned(t *testing.T, open Open) {
	s := open(t)
	for _, tc := range []struct {
		tenant, id string
		expires    time.Time
	}{{"a", "old", t0.Add(time.Hour)}, {"a", "live", t0.Add(3 * time.Hour)}, {"b", "old", t0.Add(time.Hour)}} {
		if first, err := s.SpentTokens.Spend(ctx, tc.tenant, tc.id, t0, tc.expires); err != nil || !first {
			t.Fatalf("Spend(%s, %s) = %v, %v", tc.tenant, tc.id, first, err)
		}
	}
	if first, err := s.SpentTokens.Spend(ctx, "a", "new", t0.Add(2*time.Hour), t0.Add(4*time.Hour)); err != nil || !first {
		t.Fatalf("Spend(a, new) = %v, %v", first, err)
	}
	for _, tc := range []struct {
		tenant, id string
		want       bool
	}{{"a", "old", false}, {"a", "live", true}, {"a", "new", true}, {"b", "old", true}} {
		if spent, err := s.SpentTokens.Spent(ctx, tc.tenant, tc.id); err != nil || spent != tc.want {
			t.Errorf("Spent(%s, %s) = %v, %v; want %v", tc.tenant, tc.id, spent, err, tc.want)
		}
	}
}

// testPendingStored: a pending consent keeps its confirmation end through the store, reads
// not granted in the status filter and the counts, pending or lapsed in their filters, and a confirmation stored by a change
// reads back with its proof.
func testPendingStored(t *testing.T, open Open) {
	s := open(t)
	by := t0.Add(48 * time.Hour)
	rec := record("a", tenants.KindFormSubmission, "doi", 0, "k1")
	rec.Consents.PrimaryPurpose = tenants.Consent{Status: tenants.StatusGranted}
	rec.Consents.GeneralContactEmail = tenants.Consent{Status: tenants.StatusPending, ConfirmBy: &by}
	ingest(t, s, rec)
	now := t0.Add(time.Hour)
	got, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "doi")
	if err != nil || got.Consents.GeneralContactEmail.DetailAt(now) != tenants.StatusPending || !got.Consents.GeneralContactEmail.ConfirmBy.Equal(by) {
		t.Fatalf("Get = %+v, %v; want pending until %v", got.Consents.GeneralContactEmail, err, by)
	}
	page, err := s.Records.List(ctx, "a", tenants.KindFormSubmission, tenants.Page{Consent: tenants.ConsentGeneralContactEmail, Status: tenants.StatusNotGranted, Now: now})
	if err != nil || len(page) != 1 {
		t.Errorf("not granted list = %d records, %v; want the pending one", len(page), err)
	}
	page, err = s.Records.List(ctx, "a", tenants.KindFormSubmission, tenants.Page{Consent: tenants.ConsentGeneralContactEmail, Status: tenants.StatusGranted, Now: now})
	if err != nil || len(page) != 0 {
		t.Errorf("granted list = %d records, %v; want none", len(page), err)
	}
	for _, c := range []struct {
		status tenants.ConsentStatus
		at     time.Time
		want   int
	}{{tenants.StatusPending, now, 1}, {tenants.StatusLapsed, now, 0}, {tenants.StatusPending, by, 0}, {tenants.StatusLapsed, by, 1}} {
		n, err := s.Records.CountUpTo(ctx, "a", tenants.KindFormSubmission, tenants.Page{Consent: tenants.ConsentGeneralContactEmail, Status: c.status, Now: c.at}, 10)
		if err != nil || n != int64(c.want) {
			t.Errorf("CountUpTo(%s at %v) = %d, %v; want %d", c.status, c.at, n, err, c.want)
		}
	}
	st, err := s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, now)
	if err != nil || st.GeneralContactEmail.Granted != 0 || st.GeneralContactEmail.NotGranted != 1 {
		t.Errorf("ConsentStats = %+v, %v; want the pending one not granted", st.GeneralContactEmail, err)
	}
	ip, ua := "192.0.2.7", "Mozilla/5.0"
	changed, err := s.Writer.Revoke(ctx, tenants.Change{TenantID: "a", RecordIDs: []string{rec.ID},
		Apply: func(r *tenants.Record) (bool, error) {
			return r.Consents.Confirm(tenants.ConsentGeneralContactEmail, now, &ip, &ua), nil
		},
		Audit: func([]tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: "a", Actor: "subject", Action: tenants.ActionConsentGranted, RecordIDs: []string{"doi"}}}
		}})
	if err != nil || len(changed) != 1 {
		t.Fatalf("confirm = %d, %v", len(changed), err)
	}
	got, _ = s.Records.Get(ctx, "a", tenants.KindFormSubmission, "doi")
	c := got.Consents.GeneralContactEmail
	if c.StatusAt(now) != tenants.StatusGranted || c.Confirmation == nil || *c.Confirmation.IPAddress != ip || !c.Confirmation.At.Equal(now) {
		t.Errorf("confirmed consent = %+v", c)
	}
	st, _ = s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, now)
	if st.GeneralContactEmail.Granted != 1 {
		t.Errorf("ConsentStats after confirmation = %+v; want granted", st.GeneralContactEmail)
	}
}
