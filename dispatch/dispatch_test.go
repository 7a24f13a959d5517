package dispatch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/dispatch/dispatchtest"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
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

func (m *memOutbox) Due(context.Context, time.Time, int, []string) ([]tenants.Delivery, error) {
	return nil, nil
}

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

func (m *staleOutbox) Due(context.Context, time.Time, int, []string) ([]tenants.Delivery, error) {
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

// memDeliveries holds due deliveries to a few endpoints and the outcomes stored for them.
type memDeliveries struct {
	tenants.OutboxRepo
	eps        map[string]tenants.Endpoint
	mu         sync.Mutex
	pending    map[string]tenants.Delivery // by endpoint/event
	order      []string
	delivered  map[string]int // per endpoint
	postponed  int            // outcomes that only moved a delivery later
	dueReads   int
	widestRead int
	rowsRead   int // deliveries the due reads returned
	// onDue, when set, is called at each due read (m.mu held).
	onDue func()
}

func newMemDeliveries() *memDeliveries {
	return &memDeliveries{eps: map[string]tenants.Endpoint{}, pending: map[string]tenants.Delivery{}, delivered: map[string]int{}}
}

// add registers an endpoint at url with n deliveries due at due.
func (m *memDeliveries) add(ep, url string, n int, due time.Time) {
	m.eps[ep] = tenants.Endpoint{ID: ep, TenantID: "t-" + ep, URL: url, Events: tenants.EventTypes(), Secret: "whsec_c2VjcmV0", CreatedAt: due.Add(-time.Hour)}
	for i := range n {
		dl := tenants.Delivery{EndpointID: ep, EventID: fmt.Sprintf("msg_%s_%04d", ep, i), TenantID: "t-" + ep, Type: tenants.EventTypeConsentGranted,
			Payload: "{}", CreatedAt: due, Status: tenants.DeliveryPending, NextAt: due}
		m.pending[ep+"/"+dl.EventID] = dl
		m.order = append(m.order, ep+"/"+dl.EventID)
	}
}

func (m *memDeliveries) Unfanned(context.Context, int) ([]tenants.OutboxEvent, error) {
	return nil, nil
}

func (m *memDeliveries) PruneDeliveries(context.Context, time.Time) (int64, error) { return 0, nil }

func (m *memDeliveries) Endpoint(_ context.Context, _, id string) (tenants.Endpoint, error) {
	return m.eps[id], nil
}

// Due returns the pending deliveries due at now, by NextAt and then as added, but those to
// the endpoints in skip.
func (m *memDeliveries) Due(_ context.Context, now time.Time, limit int, skip []string) ([]tenants.Delivery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dueReads++
	m.widestRead = max(m.widestRead, limit)
	if m.onDue != nil {
		m.onDue()
	}
	var out []tenants.Delivery
	for _, k := range m.order {
		if dl, ok := m.pending[k]; ok && !dl.NextAt.After(now) && !slices.Contains(skip, dl.EndpointID) {
			out = append(out, dl)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].NextAt.Before(out[j].NextAt) })
	out = out[:min(limit, len(out))]
	m.rowsRead += len(out)
	return out, nil
}

func (m *memDeliveries) Update(_ context.Context, dl tenants.Delivery) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch k := dl.EndpointID + "/" + dl.EventID; {
	case dl.Status == tenants.DeliveryDelivered:
		delete(m.pending, k)
		m.delivered[dl.EndpointID]++
	case dl.Attempts == 0:
		m.postponed++
		m.pending[k] = dl
	default:
		m.pending[k] = dl
	}
	return nil
}

func (m *memDeliveries) deliveredTo(ep string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.delivered[ep]
}

// await waits for cond, failing the test after a minute: a bound for a stuck dispatcher, not
// a measure of its speed.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute", what)
		}
	}
}

func runDispatcher(t *testing.T, m *memDeliveries, interval time.Duration) {
	t.Helper()
	d := NewDispatcher(m, Config{Policy: webhook.Policy{AllowInsecure: true}, Interval: interval, Timeout: time.Minute},
		slog.New(slog.DiscardHandler), time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestBacklogDrainsWithoutPolls: a backlog of due deliveries to an endpoint that answers at
// once is delivered at the pace it answers, not a read of 100 per poll, and none of it is
// postponed for waiting behind the endpoint's two attempts in flight. The poll interval here is
// an hour: only the first pass is a poll.
func TestBacklogDrainsWithoutPolls(t *testing.T) {
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	const n = 1000
	m := newMemDeliveries()
	m.add("we_1", srv.URL, n, time.Now().Add(-time.Minute))
	runDispatcher(t, m, time.Hour)
	await(t, "the backlog delivered", func() bool { return m.deliveredTo("we_1") == n })
	m.mu.Lock()
	defer m.mu.Unlock()
	if received.Load() != n || m.postponed != 0 {
		t.Errorf("the endpoint received %d of %d; %d deliveries postponed behind the endpoint's attempts", received.Load(), n, m.postponed)
	}
	if m.widestRead > maxRead {
		t.Errorf("a read of %d due deliveries", m.widestRead)
	}
}

// TestSlowEndpointBacklogHidesNothing: an endpoint that holds its attempts open, with more
// due deliveries than its queue takes, does not keep another endpoint's newer delivery from
// being sent, and its backlog is not read again at every pass only to be passed over.
func TestSlowEndpointBacklogHidesNothing(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer fast.Close()
	m := newMemDeliveries()
	now := time.Now()
	m.add("slow", slow.URL, 3*maxRead, now.Add(-time.Hour))
	m.add("fast", fast.URL, 1, now.Add(-time.Minute))
	runDispatcher(t, m, 10*time.Millisecond)
	await(t, "the other endpoint's delivery", func() bool { return m.deliveredTo("fast") == 1 })
	if m.deliveredTo("slow") != 0 {
		t.Error("the slow endpoint answered")
	}
	m.mu.Lock()
	reads, rows := m.dueReads, m.rowsRead
	m.mu.Unlock()
	await(t, "ten more passes", func() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.dueReads >= reads+10 })
	m.mu.Lock()
	defer m.mu.Unlock()
	// The endpoint's queue and attempts are full: the passes leave its backlog out.
	if per := float64(m.rowsRead-rows) / float64(m.dueReads-reads); per > 1 {
		t.Errorf("%.0f deliveries read per pass while the slow endpoint's queue was full", per)
	}
}

// TestPerEndpointBoundsAttempts: an endpoint that holds its requests open gets as many
// attempts in flight as PerEndpoint allows (2 by default), never more, however many of its
// deliveries are due.
func TestPerEndpointBoundsAttempts(t *testing.T) {
	for _, c := range []struct{ set, want int }{{0, 2}, {5, 5}, {MaxPerEndpoint + 10, MaxPerEndpoint}} {
		srv := dispatchtest.NewHolding()
		m := newMemDeliveries()
		m.add("we_1", srv.URL, 100, time.Now().Add(-time.Minute))
		d := NewDispatcher(m, Config{Policy: webhook.Policy{AllowInsecure: true}, Interval: 5 * time.Millisecond, Timeout: time.Minute, PerEndpoint: c.set},
			slog.New(slog.DiscardHandler), time.Now)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { d.Run(ctx); close(done) }()
		await(t, fmt.Sprintf("%d attempts in flight", c.want), func() bool { return srv.Open() == int64(c.want) })
		m.mu.Lock()
		reads := m.dueReads
		m.mu.Unlock()
		await(t, "five more passes", func() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.dueReads >= reads+5 })
		if got := srv.Most(); got != int64(c.want) {
			t.Errorf("PerEndpoint %d: %d attempts in flight at most, want %d", c.set, got, c.want)
		}
		srv.Release()
		cancel()
		<-done
		srv.Close()
	}
}

// countingEndpoint serves h and counts the connections opened to it.
func countingEndpoint(t *testing.T, h http.HandlerFunc) (url string, conns *atomic.Int64) {
	t.Helper()
	conns = &atomic.Int64{}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, conns
}

// TestEndpointConnectionsKept: an endpoint allowed more attempts in flight than the default
// keeps its connections open between them, all of them, and does not get a new connection
// for most of its deliveries.
func TestEndpointConnectionsKept(t *testing.T) {
	url, conns := countingEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond) // the attempts overlap
		w.WriteHeader(http.StatusNoContent)
	})
	const n, per = 300, 6
	m := newMemDeliveries()
	m.add("we_1", url, n, time.Now().Add(-time.Minute))
	d := NewDispatcher(m, Config{Policy: webhook.Policy{AllowInsecure: true}, Interval: time.Hour, Timeout: time.Minute, PerEndpoint: per},
		slog.New(slog.DiscardHandler), time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	await(t, "the deliveries", func() bool { return m.deliveredTo("we_1") == n })
	// Each attempt in flight may open one; a connection closed after each attempt above the
	// idle ones kept would open hundreds.
	if got := conns.Load(); got > 3*per {
		t.Errorf("%d connections for %d deliveries with %d attempts in flight", got, n, per)
	}
}

// TestEndpointAnsweringWithABodyKeepsItsConnections: an endpoint that answers 200 with a body
// (a JSON receipt, as most web frameworks answer) gets its deliveries over the connections it
// already has. Closed unread, the answer's body took its connection with it, so that each
// delivery opened a connection (and, over https, a TLS session) of its own: twice the
// server's CPU per delivery on loopback without TLS.
func TestEndpointAnsweringWithABodyKeepsItsConnections(t *testing.T) {
	url, conns := countingEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"received":true}`))
	})
	const n = 200
	m := newMemDeliveries()
	m.add("we_1", url, n, time.Now().Add(-time.Minute))
	runDispatcher(t, m, time.Hour)
	await(t, "the deliveries", func() bool { return m.deliveredTo("we_1") == n })
	if got := conns.Load(); got > 6 {
		t.Errorf("%d connections for %d deliveries to an endpoint that answers with a body; want at most 6", got, n)
	}
}

// closingEndpoint answers its first connection's first request and then closes that
// connection on reading the next one, unanswered, as a receiver does whose keep-alive timeout
// ends just as a delivery arrives; every later connection is answered 204 throughout.
func closingEndpoint(t *testing.T) (url string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	conns = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			first := conns.Add(1) == 1
			go func() {
				defer c.Close()
				rd := bufio.NewReader(c)
				for n := 1; ; n++ {
					req, err := http.ReadRequest(rd)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if first && n == 2 {
						return
					}
					if _, err := c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook", conns
}

// TestDeliveryResentWhenAKeptConnectionWasClosed: a delivery sent on a kept connection that
// the endpoint closed unanswered (its idle timeout ran out as the delivery arrived) is sent
// again at once on a new connection, not counted a failed attempt and postponed. The event
// id goes with it as Idempotency-Key, which is what lets the HTTP client send a POST twice;
// the endpoint drops a repeat by its webhook-id.
func TestDeliveryResentWhenAKeptConnectionWasClosed(t *testing.T) {
	url, conns := closingEndpoint(t)
	m := newMemDeliveries()
	m.add("we_1", url, 2, time.Now().Add(-time.Minute))
	d := NewDispatcher(m, Config{Policy: webhook.Policy{AllowInsecure: true}, Interval: time.Hour, Timeout: time.Minute,
		Base: time.Hour, PerEndpoint: 1}, slog.New(slog.DiscardHandler), time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	await(t, "both deliveries' outcomes", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		settled := 0
		for _, dl := range m.pending {
			if dl.Attempts > 0 {
				settled++
			}
		}
		return settled+m.delivered["we_1"] == 2
	})
	if got := m.deliveredTo("we_1"); got != 2 {
		t.Errorf("%d of 2 deliveries delivered (%d connections); the one sent as the endpoint closed its connection failed", got, conns.Load())
	}
}

// TestIdleEndpointConnectionsClosed: a connection to an endpoint that receives nothing more is
// closed once it has been idle for the idle timeout, even where the endpoint would keep it.
func TestIdleEndpointConnectionsClosed(t *testing.T) {
	var open atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.IdleTimeout = time.Hour
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	m := newMemDeliveries()
	m.add("we_1", srv.URL, 3, time.Now().Add(-time.Minute))
	d := NewDispatcher(m, Config{Policy: webhook.Policy{AllowInsecure: true}, Interval: time.Hour, Timeout: time.Minute,
		IdleTimeout: 100 * time.Millisecond}, slog.New(slog.DiscardHandler), time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	await(t, "the deliveries", func() bool { return m.deliveredTo("we_1") == 3 })
	await(t, "the idle connections closed", func() bool { return open.Load() == 0 })
}

// TestQueueRefilledWhileAttemptsRun: the attempt that takes the last delivery queued for its
// endpoint starts the next read of the due deliveries while it runs, so the endpoint's queue
// is refilled without a pause, rather than once every busy delivery has its outcome stored.
// The poll interval here is an hour: only the first pass is a poll.
func TestQueueRefilledWhileAttemptsRun(t *testing.T) {
	var open atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open.Add(1)
		defer open.Add(-1)
		time.Sleep(20 * time.Millisecond)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	const n = 300
	m := newMemDeliveries()
	m.add("we_1", srv.URL, n, time.Now().Add(-time.Minute))
	var readsDuringAttempts int
	// A read counts when an attempt is in flight during it. The request of the attempt that
	// started the read may reach the endpoint a little after the read began (slow under the
	// race detector), so the read waits a moment for it; were reads made only once every
	// attempt had its outcome stored, no attempt could start while one waits here.
	m.onDue = func() {
		for deadline := time.Now().Add(250 * time.Millisecond); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if open.Load() > 0 {
				readsDuringAttempts++
				return
			}
		}
	}
	runDispatcher(t, m, time.Hour)
	await(t, "the backlog delivered", func() bool { return m.deliveredTo("we_1") == n })
	m.mu.Lock()
	defer m.mu.Unlock()
	if readsDuringAttempts == 0 {
		t.Errorf("none of %d reads of the due deliveries ran while an attempt did", m.dueReads)
	}
}
