package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
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

// staleOutbox has one due delivery. Its second read of the due deliveries waits at inDue until
// released, and its endpoint reads wait until attemptGate closes; it counts the attempts.
type staleOutbox struct {
	tenants.OutboxRepo
	mu          sync.Mutex
	dueReads    int
	attempts    int
	updates     []tenants.Delivery
	inDue       chan struct{} // closed when the second read has begun
	releaseDue  chan struct{}
	attemptGate chan struct{}
}

func (m *staleOutbox) Unfanned(context.Context, int) ([]tenants.OutboxEvent, error) { return nil, nil }

func (m *staleOutbox) PruneDeliveries(context.Context, time.Time) (int64, error) { return 0, nil }

func (m *staleOutbox) Due(context.Context, time.Time, int) ([]tenants.Delivery, error) {
	m.mu.Lock()
	m.dueReads++
	n := m.dueReads
	m.mu.Unlock()
	if n == 2 {
		close(m.inDue)
		<-m.releaseDue
	}
	// What the store held when the read began: the delivery still pending.
	return []tenants.Delivery{{TenantID: "t1", EndpointID: "we_1", EventID: "msg_1", Status: tenants.DeliveryPending}}, nil
}

func (m *staleOutbox) Endpoint(context.Context, string, string) (tenants.Endpoint, error) {
	<-m.attemptGate
	m.mu.Lock()
	m.attempts++
	m.mu.Unlock()
	return tenants.Endpoint{}, tenants.ErrNotFound // the attempt ends at once: endpoint deleted
}

func (m *staleOutbox) Update(_ context.Context, dl tenants.Delivery) error {
	m.mu.Lock()
	m.updates = append(m.updates, dl)
	m.mu.Unlock()
	return nil
}

// TestStaleDueReadStartsNothingTwice: a pass whose read of the due deliveries began before an
// attempt at one of them ended does not start that delivery again from the read's stale copy
// (it was sent twice, and its outcome overwritten, when the read and the attempt's end crossed).
func TestStaleDueReadStartsNothingTwice(t *testing.T) {
	m := &staleOutbox{inDue: make(chan struct{}), releaseDue: make(chan struct{}), attemptGate: make(chan struct{})}
	d := NewDispatcher(m, Config{}, slog.New(slog.DiscardHandler), time.Now)
	ctx := context.Background()
	if err := d.pass(ctx); err != nil { // starts the attempt, which waits at the gate
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() { second <- d.pass(ctx) }()
	<-m.inDue            // the second pass's read has begun
	close(m.attemptGate) // the attempt ends, its outcome stored
	for {
		d.mu.Lock()
		idle := len(d.busy) == 0
		d.mu.Unlock()
		if idle {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(m.releaseDue) // the read answers what it saw: the delivery still pending
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	d.running.Wait()
	if m.attempts != 1 || len(m.updates) != 1 {
		t.Errorf("%d attempts, %d outcomes stored; want 1 and 1", m.attempts, len(m.updates))
	}
}
