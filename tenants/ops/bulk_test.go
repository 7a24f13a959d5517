package ops_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

func TestParseBulk(t *testing.T) {
	in, err := ops.ParseBulk("email,phone\n\"Ann@Example.org\",+44 7700 900001\nann@example.org;\t+447700900001\n\nnonsense\n0123\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(in.Emails, " ") != "ann@example.org" || strings.Join(in.Phones, " ") != "+447700900001" ||
		in.InvalidCount != 2 || strings.Join(in.Invalid, " ") != "nonsense 0123" {
		t.Errorf("ParseBulk = %+v", in)
	}
	if _, err := ops.ParseBulk("email\n\n", ""); !errors.Is(err, ops.ErrNothingInBulk) {
		t.Errorf("a header alone = %v", err)
	}
	var b strings.Builder
	for i := range ops.MaxBulkIdentifiers + 1 {
		b.WriteString("p" + strconv.Itoa(i) + "@example.org\n")
	}
	if _, err := ops.ParseBulk(b.String(), ""); !errors.Is(err, ops.ErrTooManyInBulk) {
		t.Errorf("10,001 identifiers = %v", err)
	}
}

// TestBulkExpires: a request nobody decides within 7 days expires, its match keys go, and it
// can no longer be approved.
func TestBulkExpires(t *testing.T) {
	ctx := context.Background()
	now := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	svc, store := service(t, now)
	svc.Bulk, svc.Audit = store.Bulk, store.Audit
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
	if err := svc.RunBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.Bulk.GetBulk(ctx, "t1", b.ID); got.Status != tenants.BulkPending || len(got.Keys) != 2 { // its belonging and mention key
		t.Errorf("before 7 days: %+v", got)
	}
	now.Add(time.Second)
	if err := svc.RunBulk(ctx); err != nil {
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
