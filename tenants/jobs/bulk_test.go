package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// TestBulkExpires: a request nobody decides within 7 days expires, its match keys go, and it
// can no longer be approved.
func TestBulkExpires(t *testing.T) {
	ctx := context.Background()
	now := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	p, store := passes(t, now)
	svc := p.Ops.Bulk
	in, err := ops.ParseBulk("ann@example.org\n", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.RequestBulk(ctx, "t1", "u1", "", in)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.DecideBulk(ctx, "t1", b.ID, "u1", "", true); !errors.Is(err, ops.ErrSelfApproval) {
		t.Errorf("self-approval = %v", err)
	}
	now.Add(ops.BulkTTL - time.Second)
	if err := p.RunBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.Bulk.GetBulk(ctx, "t1", b.ID); got.Status != tenants.BulkPending || len(got.Keys) != 2 { // its belonging and mention key
		t.Errorf("before 7 days: %+v", got)
	}
	now.Add(time.Second)
	if err := p.RunBulk(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := store.Bulk.GetBulk(ctx, "t1", b.ID)
	if got.Status != tenants.BulkExpired || len(got.Keys) != 0 {
		t.Errorf("after 7 days: %+v", got)
	}
	if err := svc.DecideBulk(ctx, "t1", b.ID, "u2", "", true); !errors.Is(err, ops.ErrBulkDecided) {
		t.Errorf("approving an expired request = %v", err)
	}
	entries, _ := store.Audit.List(ctx, "t1", tenants.AuditFilter{Action: tenants.ActionBulkExpired})
	if len(entries) != 1 || strings.Contains(fmt.Sprint(entries), "ann") {
		t.Errorf("expiry entries: %+v", entries)
	}
}
