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
