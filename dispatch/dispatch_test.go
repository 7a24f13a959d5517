package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// memOutbox is an outbox in memory that counts its fan-out commits; it has no due deliveries,
// so a pass sends nothing.
type memOutbox struct {
	tenants.OutboxRepo
	events     []tenants.OutboxEvent
	deliveries []tenants.Delivery
	commits    int
}

func (m *memOutbox) Endpoints(context.Context, string) ([]tenants.Endpoint, error) {
	return []tenants.Endpoint{{ID: "we_1", TenantID: "t1", Events: []string{tenants.EventTypeConsentGranted}}}, nil
}

func (m *memOutbox) Unfanned(_ context.Context, limit int) ([]tenants.OutboxEvent, error) {
	return m.events[:min(limit, len(m.events))], nil
}

func (m *memOutbox) Fan(_ context.Context, fanned []tenants.Fanned) error {
	m.commits++
	for _, f := range fanned {
		m.deliveries = append(m.deliveries, f.Deliveries...)
	}
	m.events = m.events[len(fanned):]
	return nil
}

func (m *memOutbox) PruneDeliveries(context.Context, time.Time) (int64, error) { return 0, nil }

func (m *memOutbox) Due(context.Context, time.Time, int) ([]tenants.Delivery, error) { return nil, nil }

// TestPassDrainsTheOutbox: one pass fans out every waiting event, a batch per commit, so the
// outbox keeps up with intake instead of moving 100 events a second.
func TestPassDrainsTheOutbox(t *testing.T) {
	m := &memOutbox{}
	for i := range 250 {
		m.events = append(m.events, tenants.OutboxEvent{ID: fmt.Sprint("msg_", i), TenantID: "t1",
			Type: tenants.EventTypeConsentGranted, Time: time.Unix(1, 0), Payload: "{}"})
	}
	d := NewDispatcher(m, Config{}, slog.New(slog.DiscardHandler), time.Now)
	if err := d.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(m.events) != 0 || len(m.deliveries) != 250 || m.commits != 3 {
		t.Errorf("after one pass: %d waiting, %d deliveries, %d commits; want 0, 250, 3", len(m.events), len(m.deliveries), m.commits)
	}
}

func TestDelay(t *testing.T) {
	d := &Dispatcher{cfg: Config{Base: time.Second, MaxDelay: 10 * time.Second}.withDefaults()}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		got = append(got, d.delay(n))
	}
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Errorf("delays = %v; want 1s doubling, at most 10s", got)
			break
		}
	}
}
