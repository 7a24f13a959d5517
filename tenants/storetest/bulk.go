package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var bulkTests = map[string]func(t *testing.T, open Open){
	"life cycle": testBulkLifeCycle,
	"expiry":     testBulkExpiry,
}

func bulkRequest(tenant, id string, offset int) tenants.BulkErasure {
	return tenants.BulkErasure{ID: id, TenantID: tenant, RequestedBy: "u1", RequestedAt: t0.Add(sec(offset)),
		ExpiresAt: t0.Add(sec(offset)).Add(7 * 24 * time.Hour), Status: tenants.BulkPending, Emails: 2, Phones: 1,
		Expected: map[string]int{"formSubmissions": 3}, Erased: map[string]int{}, Keys: []string{"k1", "k2", "k3"}, Total: 3}
}

func bulkIDs(list []tenants.BulkErasure) string {
	out := make([]string, len(list))
	for i, b := range list {
		out[i] = b.ID
	}
	return fmt.Sprint(out)
}

func testBulkLifeCycle(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("a", "r1", 1)))
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("a", "r2", 2)))
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("b", "r3", 3)))
	list, err := s.Bulk.ListBulk(ctx, "a")
	if err != nil || bulkIDs(list) != "[r2 r1]" || len(list[0].Keys) != 0 || list[0].Expected["formSubmissions"] != 3 {
		t.Fatalf("ListBulk = %+v, %v; want r2 r1 without keys", list, err)
	}
	if _, err := s.Bulk.GetBulk(ctx, "b", "r1"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant's request = %v", err)
	}
	if err := s.Bulk.ProgressBulk(ctx, "a", "r1", 1, nil); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("progress of a pending request = %v, want ErrConflict", err)
	}
	must(t, s.Bulk.DecideBulk(ctx, "a", "r1", tenants.BulkApproved, "u2", t0.Add(time.Hour)))
	if err := s.Bulk.DecideBulk(ctx, "a", "r1", tenants.BulkRejected, "u3", t0.Add(time.Hour)); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a second decision = %v, want ErrConflict", err)
	}
	if err := s.Bulk.DecideBulk(ctx, "a", "nope", tenants.BulkApproved, "u2", t0); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("deciding an unknown request = %v, want ErrNotFound", err)
	}
	run, err := s.Bulk.RunnableBulk(ctx)
	if err != nil || bulkIDs(run) != "[r1]" || len(run[0].Keys) != 3 || run[0].DecidedBy != "u2" {
		t.Fatalf("RunnableBulk = %+v, %v", run, err)
	}
	must(t, s.Bulk.ProgressBulk(ctx, "a", "r1", 2, map[string]int{"formSubmissions": 2}))
	if err := s.Bulk.ProgressBulk(ctx, "a", "r1", 2, map[string]int{"formSubmissions": 9}); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a repeated step = %v, want ErrConflict", err)
	}
	must(t, s.Bulk.FinishBulk(ctx, "a", "r1", tenants.BulkDone, t0.Add(2*time.Hour)))
	got, err := s.Bulk.GetBulk(ctx, "a", "r1")
	if err != nil || got.Status != tenants.BulkDone || len(got.Keys) != 0 || got.Done != 2 || got.Erased["formSubmissions"] != 2 ||
		got.FinishedAt == nil || !got.FinishedAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("finished request = %+v, %v; want done, without keys", got, err)
	}
	if run, _ := s.Bulk.RunnableBulk(ctx); len(run) != 0 {
		t.Errorf("runnable after finish: %v", bulkIDs(run))
	}
}

func testBulkExpiry(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("a", "r1", 1)))
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("b", "r2", 100)))
	must(t, s.Bulk.InsertBulk(ctx, bulkRequest("a", "r3", 2)))
	must(t, s.Bulk.DecideBulk(ctx, "a", "r3", tenants.BulkRejected, "u2", t0))
	due, err := s.Bulk.ExpiredBulk(ctx, t0.Add(7*24*time.Hour).Add(sec(50)))
	if err != nil || bulkIDs(due) != "[r1]" {
		t.Errorf("ExpiredBulk = %v, %v; want r1 only (r2 later, r3 decided)", bulkIDs(due), err)
	}
}
