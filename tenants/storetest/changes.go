package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var changeTests = map[string]func(t *testing.T, open Open){
	"erase":                           testErase,
	"concurrent erasures count once":  testConcurrentErasures,
	"a failed change changes nothing": testFailedChange,
	"revoke":                          testRevoke,
	"expire":                          testExpire,
	"expiry runs past its batch size": testExpireMany,
}

// strip is an erasure's Apply: contact data and match keys go, the record is marked.
func strip(rec *tenants.Record) (bool, error) {
	rec.Contact, rec.Address, rec.MatchKeys, rec.Payload = tenants.Contact{}, tenants.Address{}, nil, nil
	rec.AnonymisedAt = ptr(t0.Add(time.Hour))
	return true, nil
}

// auditAs returns a Change's Audit that writes one entry with the changed records' ids.
func auditAs(tenant, action string) func([]tenants.Record) []tenants.AuditEntry {
	return func(changed []tenants.Record) []tenants.AuditEntry {
		return []tenants.AuditEntry{{Time: t0.Add(time.Hour), TenantID: tenant, Actor: "key:k1", Action: action,
			RecordIDs: ids(changed), Counts: map[string]int{"n": len(changed)}}}
	}
}

// person stores a's records of one person (keys ke, kp) of every kind, plus another person's
// and tenant b's, each with contact data.
func person(t *testing.T, s tenants.Stores) {
	t.Helper()
	mk := func(tenant string, kind tenants.Kind, id string, keys ...string) tenants.Record {
		r := record(tenant, kind, id, len(id), keys...)
		r.Contact.Email = ptr(id + "@example.org")
		r.Consents.GeneralContactEmail = granted(nil)
		r.Consents.PrimaryPurpose = granted(nil)
		return r
	}
	ingest(t, s,
		mk("a", tenants.KindFormSubmission, "f1", "ke", "kp"),
		mk("a", tenants.KindFormSubmission, "f2", "ke"),
		mk("a", tenants.KindDigitisation, "d1", "kp"),
		mk("a", tenants.KindCanvassing, "c1", "ke"),
		mk("a", tenants.KindPhoneCallTask, "p1", "kp", "kq"),
		mk("a", tenants.KindFormSubmission, "other", "kz"),
		mk("b", tenants.KindFormSubmission, "b1", "ke", "kp"),
	)
}

func testErase(t *testing.T, open Open) {
	s := open(t)
	person(t, s)
	erased, err := s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"ke", "kp"}, Apply: strip,
		Audit: auditAs("a", tenants.ActionGDPRAnonymised)})
	if err != nil || setOf(erased) != "[c1 d1 f1 f2 p1]" {
		t.Fatalf("Erase = %v, %v; want c1 d1 f1 f2 p1", setOf(erased), err)
	}
	for _, r := range erased {
		if r.Contact.Email == nil {
			t.Errorf("Erase returns the records as they were; %s has no e-mail", r.PublicID)
		}
	}
	got, err := s.Records.Get(ctx, "a", tenants.KindPhoneCallTask, "p1")
	if err != nil || got.Contact.Email != nil || got.AnonymisedAt == nil || len(got.MatchKeys) != 0 {
		t.Errorf("stored p1 after the erasure: %+v, %v", got, err)
	}
	// Every match key of an erased record is gone from the index, not only those searched for.
	if found, _ := s.Records.Find(ctx, "a", []string{"ke", "kp", "kq"}); len(found) != 0 {
		t.Errorf("the erased person is still found: %v", ids(found))
	}
	for _, keep := range []struct{ tenant, id, key string }{{"a", "other", "kz"}, {"b", "b1", "ke"}} {
		found, _ := s.Records.Find(ctx, keep.tenant, []string{keep.key})
		if len(found) != 1 || found[0].Contact.Email == nil {
			t.Errorf("%s's %s changed: %+v", keep.tenant, keep.id, found)
		}
	}
	entries, _ := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
	if len(entries) != 1 || entries[0].Counts["n"] != 5 || len(entries[0].RecordIDs) != 5 {
		t.Errorf("audit = %+v, want one entry for 5 records", entries)
	}
	again, err := s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"ke", "kp"}, Apply: strip,
		Audit: auditAs("a", tenants.ActionGDPRAnonymised)})
	if err != nil || len(again) != 0 {
		t.Errorf("repeat = %v, %v; want none", ids(again), err)
	}
	if n := auditCount(t, s, "a", tenants.ActionGDPRAnonymised); n != 1 {
		t.Errorf("a repeat that erased nothing appended %d entries", n-1)
	}
}

func testConcurrentErasures(t *testing.T, open Open) {
	s := open(t)
	person(t, s)
	const n = 5
	var wg sync.WaitGroup
	counts := make([]int, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var erased []tenants.Record
			erased, errs[i] = s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"ke", "kp"}, Apply: strip,
				Audit: auditAs("a", tenants.ActionGDPRAnonymised)})
			counts[i] = len(erased)
		}()
	}
	wg.Wait()
	sum := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("erasure %d: %v", i, errs[i])
		}
		sum += counts[i]
	}
	if sum != 5 {
		t.Errorf("%d concurrent erasures counted %v = %d records, want 5 in all", n, counts, sum)
	}
	entries, _ := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
	audited := 0
	for _, e := range entries {
		audited += len(e.RecordIDs)
	}
	if audited != 5 {
		t.Errorf("the audit log names %d erased records, want 5: %+v", audited, entries)
	}
}

func testFailedChange(t *testing.T, open Open) {
	s := open(t)
	person(t, s)
	boom := errors.New("boom")
	calls := 0
	_, err := s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"ke", "kp"},
		Apply: func(rec *tenants.Record) (bool, error) {
			if calls++; calls == 3 {
				return false, boom
			}
			return strip(rec)
		}, Audit: auditAs("a", tenants.ActionGDPRAnonymised)})
	if !errors.Is(err, boom) {
		t.Fatalf("Erase = %v, want the Apply error", err)
	}
	found, _ := s.Records.Find(ctx, "a", []string{"ke", "kp"})
	if len(found) != 5 {
		t.Errorf("after a failed erasure %d of 5 records are found", len(found))
	}
	for _, r := range found {
		if r.Contact.Email == nil || r.AnonymisedAt != nil {
			t.Errorf("a failed erasure changed %s: %+v", r.PublicID, r)
		}
	}
	if n := auditCount(t, s, "a", tenants.ActionGDPRAnonymised); n != 0 {
		t.Errorf("a failed erasure was audited")
	}
}

// revokeEmail is a revocation's Apply: general contact by e-mail, where granted.
func revokeEmail(rec *tenants.Record) (bool, error) {
	c := &rec.Consents.GeneralContactEmail
	if c.Status != tenants.StatusGranted {
		return false, nil
	}
	c.Status, c.RevokedAt, c.RevokedBy = tenants.StatusRevoked, ptr(t0.Add(time.Hour)), "brevo"
	return true, nil
}

func testRevoke(t *testing.T, open Open) {
	s := open(t)
	person(t, s)
	kinds := []tenants.Kind{tenants.KindFormSubmission, tenants.KindDigitisation, tenants.KindCanvassing}
	ch := tenants.Change{TenantID: "a", MatchKeys: []string{"ke", "kp"}, Kinds: kinds, Apply: revokeEmail,
		Audit: auditAs("a", tenants.ActionConsentRevoked)}
	changed, err := s.Writer.Revoke(ctx, ch)
	if err != nil || setOf(changed) != "[c1 d1 f1 f2]" {
		t.Fatalf("Revoke = %v, %v; want c1 d1 f1 f2 (no phone call task)", setOf(changed), err)
	}
	if changed[0].Consents.GeneralContactEmail.Status != tenants.StatusRevoked {
		t.Errorf("Revoke returns the records as changed: %+v", changed[0].Consents)
	}
	got, _ := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "f1")
	c := got.Consents
	if c.GeneralContactEmail.Status != tenants.StatusRevoked || c.GeneralContactEmail.RevokedBy != "brevo" ||
		!c.GeneralContactEmail.RevokedAt.Equal(t0.Add(time.Hour)) || c.PrimaryPurpose.Status != tenants.StatusGranted {
		t.Errorf("f1's consents after the revocation: %+v", c)
	}
	if got.Contact.Email == nil || len(got.MatchKeys) != 2 {
		t.Errorf("a revocation changed more than consents: %+v", got)
	}
	for _, keep := range []struct {
		tenant string
		kind   tenants.Kind
		id     string
	}{{"a", tenants.KindPhoneCallTask, "p1"}, {"a", tenants.KindFormSubmission, "other"}, {"b", tenants.KindFormSubmission, "b1"}} {
		r, _ := s.Records.Get(ctx, keep.tenant, keep.kind, keep.id)
		if r.Consents.GeneralContactEmail.Status != tenants.StatusGranted {
			t.Errorf("%s/%s was revoked: %+v", keep.tenant, keep.id, r.Consents)
		}
	}
	// The revoked records are still found: a revocation keeps the person's match keys.
	if again, err := s.Writer.Revoke(ctx, ch); err != nil || len(again) != 0 {
		t.Errorf("repeat = %v, %v; want none", ids(again), err)
	}
	if n := auditCount(t, s, "a", tenants.ActionConsentRevoked); n != 1 {
		t.Errorf("audit entries = %d, want 1", n)
	}
}

// expiryAudit is an ExpiryRun's Audit: one entry per consent, with a deterministic id.
func expiryAudit(now time.Time) func(tenants.Record, []string) []tenants.AuditEntry {
	return func(rec tenants.Record, names []string) []tenants.AuditEntry {
		var out []tenants.AuditEntry
		for _, n := range names {
			out = append(out, tenants.AuditEntry{ID: "expired:" + rec.ID + ":" + n, Time: now, TenantID: rec.TenantID,
				Actor: tenants.ActorSystem, Action: tenants.ActionConsentExpired, RecordIDs: []string{rec.PublicID}, Detail: n})
		}
		return out
	}
}

func testExpire(t *testing.T, open Open) {
	s := open(t)
	soon, later := t0.Add(time.Minute), t0.Add(48*time.Hour)
	a := record("a", tenants.KindFormSubmission, "a", 0)
	a.Consents.PrimaryPurpose, a.Consents.GeneralContactEmail = granted(&soon), granted(&later)
	b := record("b", tenants.KindDigitisation, "b", 1)
	b.Consents.GeneralContactPhone = granted(&soon)
	revoked := record("a", tenants.KindFormSubmission, "revoked", 2)
	revoked.Consents.GeneralContactEmail = tenants.Consent{Status: tenants.StatusRevoked, Deadline: &soon}
	ingest(t, s, a, b, revoked)
	now := t0.Add(time.Hour)
	n, err := s.Writer.Expire(ctx, tenants.ExpiryRun{Now: now, Limit: 10, Audit: expiryAudit(now)})
	if err != nil || n != 2 {
		t.Fatalf("Expire = %d, %v; want 2 (one consent of each tenant)", n, err)
	}
	got, _ := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "a")
	if got.Consents.PrimaryPurpose.Status != tenants.StatusExpired || got.Consents.GeneralContactEmail.Status != tenants.StatusGranted {
		t.Errorf("a's stored consents: %+v", got.Consents)
	}
	if got, _ := s.Records.Get(ctx, "b", tenants.KindDigitisation, "b"); got.Consents.GeneralContactPhone.Status != tenants.StatusExpired {
		t.Errorf("b's stored consents: %+v", got.Consents)
	}
	if got, _ := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "revoked"); got.Consents.GeneralContactEmail.Status != tenants.StatusRevoked {
		t.Errorf("a revoked consent with a passed deadline became %s", got.Consents.GeneralContactEmail.Status)
	}
	if n, err := s.Writer.Expire(ctx, tenants.ExpiryRun{Now: now, Limit: 10, Audit: expiryAudit(now)}); err != nil || n != 0 {
		t.Errorf("second run = %d, %v; want 0", n, err)
	}
	entries, err := s.Audit.List(ctx, "a", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil || len(entries) != 1 || entries[0].Detail != string(tenants.ConsentPrimaryPurpose) || entries[0].RecordIDs[0] != "a" {
		t.Errorf("a's audit: %+v, %v", entries, err)
	}
	// Later, the second deadline passes.
	later2 := later.Add(time.Minute)
	if n, err := s.Writer.Expire(ctx, tenants.ExpiryRun{Now: later2, Limit: 10, Audit: expiryAudit(later2)}); err != nil || n != 1 {
		t.Errorf("after the second deadline = %d, %v; want 1", n, err)
	}
}

func testExpireMany(t *testing.T, open Open) {
	s := open(t)
	soon := t0.Add(time.Minute)
	var recs []tenants.Record
	for i := range 25 {
		r := record("a", tenants.KindFormSubmission, fmt.Sprintf("r%02d", i), i)
		r.Consents.PrimaryPurpose = granted(&soon)
		recs = append(recs, r)
	}
	ingest(t, s, recs...)
	now := t0.Add(time.Hour)
	if n, err := s.Writer.Expire(ctx, tenants.ExpiryRun{Now: now, Limit: 10, Audit: expiryAudit(now)}); err != nil || n != 25 {
		t.Errorf("Expire with batches of 10 = %d, %v; want all 25", n, err)
	}
	if n := auditCount(t, s, "a", tenants.ActionConsentExpired); n != 25 {
		t.Errorf("audit entries = %d, want 25", n)
	}
}
