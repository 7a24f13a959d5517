package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var sessionTests = map[string]func(t *testing.T, open Open){
	"sessions":       testSessions,
	"staff accounts": testStaffAccounts,
	"set match keys": testSetMatchKeys,
}

// testSessions: a recorded session is found until it is deleted, alone or with the user's
// others; recording one drops those expired.
func testSessions(t *testing.T, open Open) {
	s := open(t)
	se := func(id, staff string, created time.Time) tenants.Session {
		return tenants.Session{ID: id, StaffID: staff, CreatedAt: created, ExpiresAt: created.Add(time.Hour)}
	}
	for _, x := range []tenants.Session{se("s1", "u1", t0), se("s2", "u1", t0), se("s3", "u1", t0), se("s4", "u2", t0)} {
		must(t, s.Sessions.Insert(ctx, x))
	}
	if got, err := s.Sessions.Get(ctx, "s1"); err != nil || got.StaffID != "u1" || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if err := s.Sessions.Insert(ctx, se("s1", "u9", t0)); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a session id twice: %v, want ErrConflict", err)
	}
	must(t, s.Sessions.Delete(ctx, "s1"))
	must(t, s.Sessions.Delete(ctx, "s1")) // gone already: no error
	must(t, s.Sessions.DeleteStaff(ctx, "u1", "s3"))
	for id, want := range map[string]bool{"s1": false, "s2": false, "s3": true, "s4": true} {
		_, err := s.Sessions.Get(ctx, id)
		if got := err == nil; got != want || (err != nil && !errors.Is(err, tenants.ErrNotFound)) {
			t.Errorf("session %s: %v, want present %v", id, err, want)
		}
	}
	must(t, s.Sessions.DeleteStaff(ctx, "u2", ""))
	if _, err := s.Sessions.Get(ctx, "s4"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("DeleteStaff without keep left s4: %v", err)
	}
	// Two hours on, a new session drops s3, expired an hour ago.
	must(t, s.Sessions.Insert(ctx, se("s5", "u1", t0.Add(2*time.Hour))))
	if _, err := s.Sessions.Get(ctx, "s3"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("expired s3 kept: %v", err)
	}
}

// testStaffAccounts: disabling and a new password are read back, exported and imported.
func testStaffAccounts(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	must(t, s.Staff.Insert(ctx, tenants.Staff{ID: "u1", Email: "ada@example.org", PasswordHash: "$2a$old", Role: tenants.RoleViewer,
		TenantID: "a", CreatedAt: t0, MustChangePassword: true}))
	if got, err := s.Staff.Lookup(ctx, "u1"); err != nil || !got.MustChangePassword || got.Disabled {
		t.Errorf("inserted = %+v, %v", got, err)
	}
	must(t, s.Staff.SetDisabled(ctx, "u1", true))
	must(t, s.Staff.SetPassword(ctx, "u1", "$2a$new", false))
	got, err := s.Staff.ByEmail(ctx, "ada@example.org")
	if err != nil || !got.Disabled || got.MustChangePassword || got.PasswordHash != "$2a$new" {
		t.Errorf("changed = %+v, %v", got, err)
	}
	if err := s.Staff.SetDisabled(ctx, "u9", true); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("disable unknown: %v", err)
	}
	if err := s.Staff.SetPassword(ctx, "u9", "$2a$x", false); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("password of unknown: %v", err)
	}
	must(t, s.Staff.SetDisabled(ctx, "u1", false))
	if got, _ := s.Staff.Lookup(ctx, "u1"); got.Disabled {
		t.Error("re-enabled user still disabled")
	}
	must(t, s.Staff.SetDisabled(ctx, "u1", true))
	var items []tenants.Item
	must(t, s.Transfer.Export(ctx, func(it tenants.Item) error { items = append(items, it); return nil }))
	d := open(t)
	if _, err := d.Transfer.Import(ctx, items); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Staff.Lookup(ctx, "u1"); err != nil || !got.Disabled || got.PasswordHash != "$2a$new" {
		t.Errorf("imported = %+v, %v", got, err)
	}
}

// testSetMatchKeys: new match keys (and contact phone) replace the old ones in the index people
// are found through; the rest of the record is unchanged; another tenant's record is not
// reached; the store remembers the keying version.
func testSetMatchKeys(t *testing.T, open Open) {
	s := open(t)
	ingest(t, s, record("a", tenants.KindFormSubmission, "r1", 0, "old1", "old2"), record("a", tenants.KindCanvassing, "r2", 1, "old1"))
	phone := "+442079460958"
	must(t, s.MatchKeys.Rekey(ctx, []tenants.Rekeying{{TenantID: "a", Kind: tenants.KindFormSubmission, PublicID: "r1", Phone: &phone, Keys: []string{"new1", "old2"}}}))
	find := func(key string) []string {
		recs, err := s.Records.Find(ctx, "a", []string{key})
		must(t, err)
		return ids(recs)
	}
	for key, want := range map[string][]string{"old1": {"r2"}, "old2": {"r1"}, "new1": {"r1"}} {
		if got := find(key); !slices.Equal(got, want) {
			t.Errorf("Find(%s) = %v, want %v", key, got, want)
		}
	}
	got, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	if err != nil || !slices.Equal(got.MatchKeys, []string{"new1", "old2"}) || got.FormID != "petition" ||
		got.Contact.PhoneNumber == nil || *got.Contact.PhoneNumber != phone {
		t.Errorf("Get = %+v, %v", got, err)
	}
	must(t, s.MatchKeys.Rekey(ctx, []tenants.Rekeying{{TenantID: "a", Kind: tenants.KindCanvassing, PublicID: "r2"}}))
	if got := find("old1"); len(got) != 0 {
		t.Errorf("cleared keys still find %v", got)
	}
	if err := s.MatchKeys.Rekey(ctx, []tenants.Rekeying{{TenantID: "b", Kind: tenants.KindFormSubmission, PublicID: "r1", Keys: []string{"x"}}}); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant's record: %v, want ErrNotFound", err)
	}
	if v, err := s.MatchKeys.KeyingVersion(ctx); err != nil || v != 0 {
		t.Errorf("a fresh store's keying version = %d, %v; want 0", v, err)
	}
	must(t, s.MatchKeys.SetKeyingVersion(ctx, 2))
	must(t, s.MatchKeys.SetKeyingVersion(ctx, 3))
	if v, err := s.MatchKeys.KeyingVersion(ctx); err != nil || v != 3 {
		t.Errorf("keying version = %d, %v; want 3", v, err)
	}
}
