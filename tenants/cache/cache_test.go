package cache

import (
	"context"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// endpoints is an OutboxRepo with endpoints in memory that counts the reads of them.
type endpoints struct {
	tenants.OutboxRepo
	eps   map[string]tenants.Endpoint
	reads int
}

func (e *endpoints) Endpoint(_ context.Context, tenantID, id string) (tenants.Endpoint, error) {
	e.reads++
	ep, ok := e.eps[tenantID+"/"+id]
	if !ok {
		return tenants.Endpoint{}, tenants.ErrNotFound
	}
	return ep, nil
}

func (e *endpoints) SetFailing(_ context.Context, tenantID, id string, since *time.Time) error {
	ep := e.eps[tenantID+"/"+id]
	ep.FailingSince = since
	e.eps[tenantID+"/"+id] = ep
	return nil
}

// TestOutboxCachesLiveEndpointsOnly: a live endpoint is read from the store once, and again
// after this instance disabled it; a disabled or missing endpoint is read from the store every
// time, so no attempt fails on a stale reason.
func TestOutboxCachesLiveEndpointsOnly(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	store := &endpoints{eps: map[string]tenants.Endpoint{"t1/live": {ID: "live"}, "t1/off": {ID: "off", FailingSince: &now}}}
	o := NewOutbox(store)
	read := func(id string) (tenants.Endpoint, error) { return o.Endpoint(ctx, "t1", id) }
	for range 3 {
		if _, err := read("live"); err != nil {
			t.Fatal(err)
		}
	}
	if store.reads != 1 {
		t.Errorf("a live endpoint read %d times from the store, want once", store.reads)
	}
	store.reads = 0
	for range 2 {
		if ep, err := read("off"); err != nil || ep.Live() {
			t.Fatalf("the disabled endpoint: %+v, %v", ep, err)
		}
		if _, err := read("gone"); err != tenants.ErrNotFound {
			t.Fatalf("a missing endpoint: %v", err)
		}
	}
	if store.reads != 4 {
		t.Errorf("disabled and missing endpoints read %d times from the store, want every time (4)", store.reads)
	}
	if err := o.SetFailing(ctx, "t1", "live", &now); err != nil {
		t.Fatal(err)
	}
	if ep, _ := read("live"); ep.Live() {
		t.Error("the endpoint this instance disabled still reads as live")
	}
}
