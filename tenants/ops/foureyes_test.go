package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/sqlite/sqlitetest"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/provision"
	"golang.org/x/crypto/bcrypt"
)

// TestFourEyesApproval: on a real store, a bulk erasure is approved only by an account the
// requester does not control. The requester, the account it created (P1), the account P1
// created (P2), an account it created before accounts recorded their creator (known from the
// audit log alone), and an account created after the request are all refused, and the request
// stays pending; an admin created independently before the request approves it.
func TestFourEyesApproval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := sqlitetest.Seed(dir); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	tenants.PasswordCost = bcrypt.MinCost // what is asserted does not depend on it

	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	prov := &provision.Service{Tenants: s.Tenants, Staff: s.Staff, Audit: s.Audit, Now: clock}
	svc := ops.New(ops.Config{Tenants: s.Tenants, Records: s.Records, Writer: s.Writer, Hasher: tenants.NewHasher([]byte("0123456789abcdef0123456789abcdef")),
		Now: clock, Audit: s.Audit, Bulk: s.Bulk, Staff: s.Staff}).Bulk
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Tenants.Insert(ctx, tenants.Tenant{ID: "t1", Name: "Org", Status: tenants.TenantActive, CreatedAt: now}))
	staff := func(by provision.Actor, email string) tenants.Staff {
		t.Helper()
		now = now.Add(time.Minute)
		st, err := prov.CreateStaff(ctx, by, provision.StaffInput{Email: email, Password: "a-long-password-1", Role: tenants.RoleTenantAdmin, TenantID: "t1", Operator: by.Name == "cli"})
		must(err)
		return st
	}
	cli := provision.Actor{Name: "cli", Operator: true}
	as := func(st tenants.Staff) provision.Actor { return provision.Actor{Name: "staff:" + st.ID} }

	requester := staff(cli, "requester@example.org")
	other := staff(cli, "other@example.org")
	p1 := staff(as(requester), "p1@example.org")
	p2 := staff(as(p1), "p2@example.org")
	if p1.CreatedBy != requester.ID || p2.CreatedBy != p1.ID || requester.CreatedBy != "" {
		t.Fatalf("creators: p1 %q, p2 %q, requester %q", p1.CreatedBy, p2.CreatedBy, requester.CreatedBy)
	}
	// An account made by the requester before creators were recorded: only its staff.created
	// entry names who made it.
	now = now.Add(time.Minute)
	legacy := tenants.Staff{ID: "u_legacy", Email: "legacy@example.org", PasswordHash: "x", Role: tenants.RoleTenantAdmin, TenantID: "t1", CreatedAt: now}
	must(s.Staff.Insert(ctx, legacy))
	must(s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: "t1", Actor: "staff:" + requester.ID, Action: tenants.ActionStaffCreated, RecordIDs: []string{legacy.ID}}))
	legacyChild := staff(provision.Actor{Name: "staff:" + legacy.ID}, "legacy-child@example.org")

	now = now.Add(time.Hour)
	in, err := ops.ParseBulk("ann@example.org\n", "")
	must(err)
	b, err := svc.RequestBulk(ctx, "t1", requester.ID, "r1", in)
	must(err)
	late := staff(as(other), "late@example.org") // made after the request, by an account the requester does not control

	for _, tt := range []struct {
		name string
		by   tenants.Staff
		want error
	}{
		{"the requester", requester, ops.ErrSelfApproval},
		{"an account the requester created", p1, ops.ErrPuppetApprover},
		{"an account created by one the requester created", p2, ops.ErrPuppetApprover},
		{"an account the requester created, known from the audit log", legacy, ops.ErrPuppetApprover},
		{"an account created by that one", legacyChild, ops.ErrPuppetApprover},
		{"an account created after the request", late, ops.ErrPuppetApprover},
	} {
		if err := svc.DecideBulk(ctx, "t1", b.ID, tt.by.ID, "r2", true); !errors.Is(err, tt.want) {
			t.Errorf("approval by %s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if got, err := s.Bulk.GetBulk(ctx, "t1", b.ID); err != nil || got.Status != tenants.BulkPending {
		t.Fatalf("after the refusals the request is %q, %v; want pending", got.Status, err)
	}
	if err := svc.DecideBulk(ctx, "t1", b.ID, other.ID, "r3", true); err != nil {
		t.Fatalf("approval by an independent admin: %v", err)
	}
	if got, _ := s.Bulk.GetBulk(ctx, "t1", b.ID); got.Status != tenants.BulkApproved || got.DecidedBy != other.ID {
		t.Errorf("after the approval: %q by %q", got.Status, got.DecidedBy)
	}
}
