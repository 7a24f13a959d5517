// Package dispatch delivers the outgoing webhooks (docs/WEBHOOKS.md): it fans the outbox's
// events out to the endpoints that want them and sends each delivery over HTTP, signed, with
// retries on a doubling delay. It is the adapter around the domain's webhook package, which
// declares events, endpoints, the URL policy and signing.
package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Config tunes the dispatcher; zero fields take the defaults of docs/WEBHOOKS.md.
type Config struct {
	Policy webhook.Policy
	// Base is the first retry's delay; each further retry waits twice as long, up to MaxDelay.
	Base     time.Duration
	MaxDelay time.Duration
	// Window is how long a delivery is retried before the endpoint is disabled as failing.
	Window time.Duration
	// Interval is how often the outbox is polled; Timeout bounds one delivery attempt.
	Interval time.Duration
	Timeout  time.Duration
	// PerEndpoint bounds the attempts in flight to one endpoint (default 2, at most
	// MaxPerEndpoint): a slow endpoint holds that many slots, and its other due deliveries
	// wait without holding any. One endpoint receives at most about PerEndpoint deliveries per
	// round trip.
	PerEndpoint int
	// IdleTimeout is how long a connection to an endpoint stays open without a delivery
	// (default 90 s): a server with many endpoints does not hold a connection to each of
	// them for ever, where the receivers keep idle connections open.
	IdleTimeout time.Duration
	// Mailer sends the deliveries of the tenants' mail endpoints (mail.go; nil: they fail
	// as not set up).
	Mailer Mailer
}

func (c Config) withDefaults() Config {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Base, 30*time.Second)
	def(&c.MaxDelay, 2*time.Hour)
	def(&c.Window, 24*time.Hour)
	def(&c.Interval, time.Second)
	def(&c.Timeout, 5*time.Second)
	def(&c.IdleTimeout, 90*time.Second)
	if c.PerEndpoint <= 0 {
		c.PerEndpoint = 2
	}
	c.PerEndpoint = min(c.PerEndpoint, MaxPerEndpoint)
	return c
}

// batch bounds what one pass reads; parallel bounds the attempts in flight at once, and
// Config.PerEndpoint those to one endpoint, so that a slow endpoint holds a few slots and never
// the deliveries of other tenants.
const (
	batch = 100
	// queueCap bounds the deliveries queued for one endpoint, maxQueued for all (queued);
	// maxRead bounds one read of the due deliveries (it reaches past those already busy).
	queueCap  = batch
	maxQueued = 10 * batch
	maxRead   = 20 * batch
	// fanBatches bounds the fan-out of one pass: 50 batches a second is far more than intake
	// can produce.
	fanBatches = 50
	parallel   = 32
)

// MaxPerEndpoint is the most attempts one endpoint may have in flight: half of all, so that
// two slow endpoints never hold every slot.
const MaxPerEndpoint = parallel / 2

// The delivery log keeps what was delivered or failed for logKept, pruned every pruneEvery.
const (
	logKept    = 30 * 24 * time.Hour
	pruneEvery = time.Hour
)

// Dispatcher fans outbox events out to the endpoints that want them and delivers them, at
// least once: a delivery is marked delivered only after its endpoint answered 2xx.
type Dispatcher struct {
	repo   tenants.OutboxRepo
	cfg    Config
	client *http.Client
	log    *slog.Logger
	now    func() time.Time
	pruned time.Time // the last prune; the zero time prunes at the first pass

	// Attempts run in goroutines of their own, across passes: a pass starts the due ones and
	// goes on; mu guards the books of what is in flight.
	mu       sync.Mutex
	running  sync.WaitGroup
	inflight map[string]int  // attempts in flight per endpoint (tenant/endpoint)
	busy     map[string]bool // deliveries being attempted (endpoint/event)
	slots    chan struct{}   // one per attempt in flight, parallel in all
	// finished holds the deliveries whose attempt ended, each with the number of the last
	// read of the due deliveries begun by then (reads counts them). A read begun before an
	// attempt ended may still show that delivery as due, as it was before the attempt's
	// outcome was stored: started again from that read, it would be sent twice, or its
	// outcome overwritten by the stale copy.
	finished map[string]uint64
	reads    uint64
	// queued holds, per endpoint, due deliveries read while its attempts were all in flight:
	// the goroutine of an attempt that ends takes the next one, so an endpoint that answers
	// quickly gets its backlog at the pace it answers, not one read of the due deliveries per
	// poll. They count as busy; at most queueCap per endpoint and maxQueued in all.
	queued  map[string][]tenants.Delivery
	nQueued int
	// more says the last pass may have left due deliveries it did not start or queue (its
	// read was full, or left out the endpoints that could take no more): the endpoint whose
	// queue runs dry (work), or whose busy deliveries are all done (busyOf), then kicks a pass
	// at once, instead of leaving them to the next poll.
	more bool
	kick chan struct{}
	// busyOf counts the busy deliveries per endpoint: the one whose count drops to 0 kicks the
	// next pass (when the last left due deliveries), once its outcomes are stored, so that the
	// read does not take them up again only to skip them.
	busyOf map[string]int

	// Held, when set, says whether this instance holds the dispatch lease: a pass runs only
	// then, so that instances sharing a database do not send the same deliveries at once.
	Held func() bool
}

// NewDispatcher returns a dispatcher over repo.
func NewDispatcher(repo tenants.OutboxRepo, cfg Config, log *slog.Logger, now func() time.Time) *Dispatcher {
	cfg = cfg.withDefaults()
	// An endpoint's connections stay open between its attempts, as many as it may have in
	// flight: with fewer kept, each attempt beyond them would open a connection (and a TLS
	// session) of its own.
	tr := &http.Transport{DialContext: cfg.Policy.Dialer().DialContext, Proxy: nil,
		TLSHandshakeTimeout: cfg.Timeout, MaxIdleConnsPerHost: cfg.PerEndpoint, IdleConnTimeout: cfg.IdleTimeout}
	client := &http.Client{Transport: tr, Timeout: cfg.Timeout,
		// A redirect could lead anywhere: it counts as a failed attempt.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Dispatcher{repo: repo, cfg: cfg, client: client, log: log, now: now,
		inflight: map[string]int{}, busy: map[string]bool{}, finished: map[string]uint64{}, slots: make(chan struct{}, parallel),
		queued: map[string][]tenants.Delivery{}, kick: make(chan struct{}, 1), busyOf: map[string]int{}}
}

// Run polls the outbox until ctx ends, then waits for the attempts in flight (each bounded by
// the timeout and ended with ctx).
func (d *Dispatcher) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Interval)
	defer t.Stop()
	defer d.running.Wait()
	for {
		if d.Held != nil && !d.Held() {
			// Another instance dispatches.
		} else if err := d.pass(ctx); err != nil && ctx.Err() == nil {
			d.log.Error("webhook dispatch", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.kick:
		}
	}
}

// Pass fans out the waiting events, a batch at a time until the outbox is empty (at most
// fanBatches batches, so that deliveries are never starved), makes one attempt at each due
// delivery that its endpoint has room for, and waits for the attempts.
func (d *Dispatcher) Pass(ctx context.Context) error {
	err := d.pass(ctx)
	d.running.Wait()
	return err
}

// pass is Pass without the wait: Run's passes start attempts and go on, so that an endpoint
// that answers slowly delays only its own deliveries.
func (d *Dispatcher) pass(ctx context.Context) error {
	for range fanBatches {
		n, err := d.fan(ctx)
		if err != nil {
			return err
		}
		if n < batch || ctx.Err() != nil {
			break
		}
	}
	if now := d.now(); now.Sub(d.pruned) >= pruneEvery {
		if _, err := d.repo.PruneDeliveries(ctx, now.Add(-logKept)); err != nil {
			return err
		}
		d.pruned = now
	}
	// The read reaches past the deliveries this server is already at (in flight or queued,
	// still pending in the store, so they come first), and leaves out the endpoints that can
	// take no more: their backlog, however long, hides no other endpoint's deliveries, and is
	// not read only to be passed over.
	read, busy, full := d.beginRead()
	limit := min(batch+busy, maxRead)
	due, err := d.repo.Due(ctx, d.now(), limit, full)
	if err != nil {
		return err
	}
	more := len(due) >= limit || len(full) > 0
	defer func() {
		d.mu.Lock()
		d.more = more
		// With nothing in flight, no attempt's end will kick the next pass.
		kick := more && len(d.busy) == 0
		d.mu.Unlock()
		if kick {
			d.kickPass()
		}
	}()
	for _, dl := range due {
		switch d.start(ctx, dl, read) {
		case endpointFull:
			// Its endpoint filled up during this read: the delivery stays due for a pass
			// after one of the endpoint's attempts ends.
			more = true
		case allFull:
			more = true
			return nil
		}
	}
	return nil
}

type started int

const (
	startedNow   started = iota
	queuedNow            // its endpoint has PerEndpoint attempts in flight: one of them takes it next
	alreadyBusy          // this delivery is being attempted, or queued
	endpointFull         // its endpoint has PerEndpoint attempts in flight and a full queue
	allFull              // parallel attempts are in flight
)

// beginRead numbers a read of the due deliveries and says how many deliveries are busy (in
// flight or queued) as it begins, and which endpoints can take no more (full): those with
// PerEndpoint attempts in flight and no room to queue. The attempts that ended before the read
// before it no longer matter to any read (passes run one after another) and are forgotten.
func (d *Dispatcher) beginRead() (read uint64, busy int, full []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reads++
	for key, at := range d.finished {
		if at+1 < d.reads {
			delete(d.finished, key)
		}
	}
	for ep, n := range d.inflight {
		if n >= d.cfg.PerEndpoint && !d.canQueue(ep) {
			full = append(full, ep[strings.LastIndexByte(ep, '/')+1:]) // endpoint ids hold no "/"
		}
	}
	return d.reads, len(d.busy), full
}

// canQueue says whether a delivery to ep could be queued (d.mu held).
func (d *Dispatcher) canQueue(ep string) bool {
	return len(d.queued[ep]) < queueCap && d.nQueued < maxQueued
}

// start begins an attempt at dl, as the due deliveries' read numbered read showed it, in a
// goroutine of its own, if there is room.
func (d *Dispatcher) start(ctx context.Context, dl tenants.Delivery, read uint64) started {
	ep, key := dl.TenantID+"/"+dl.EndpointID, dl.EndpointID+"/"+dl.EventID
	d.mu.Lock()
	defer d.mu.Unlock()
	if at, ok := d.finished[key]; ok && at >= read {
		return alreadyBusy // attempted since the read began: the read's copy may be stale
	}
	switch {
	case d.busy[key]:
		return alreadyBusy
	case d.inflight[ep] >= d.cfg.PerEndpoint && d.canQueue(ep):
		d.queued[ep] = append(d.queued[ep], dl)
		d.nQueued++
		d.busy[key] = true
		d.busyOf[ep]++
		return queuedNow
	case d.inflight[ep] >= d.cfg.PerEndpoint:
		return endpointFull
	}
	select {
	case d.slots <- struct{}{}:
	default:
		return allFull
	}
	d.busy[key] = true
	d.busyOf[ep]++
	d.inflight[ep]++
	d.running.Add(1)
	go d.work(ctx, ep, dl)
	return startedNow
}

// work makes the attempt at dl, then one at each delivery queued for its endpoint ep, in
// turn, while this server dispatches; what is still queued when it stops stays pending in the
// store for a later read.
func (d *Dispatcher) work(ctx context.Context, ep string, dl tenants.Delivery) {
	defer d.running.Done()
	defer func() { <-d.slots }()
	for {
		d.running.Add(1)
		go d.store(ctx, ep, dl, d.attempt(ctx, dl))
		on := ctx.Err() == nil && (d.Held == nil || d.Held())
		d.mu.Lock()
		q := d.queued[ep]
		if on && len(q) > 0 {
			dl = q[0]
			// Taking the last one queued, while the last pass left due deliveries behind:
			// the next pass refills the queue now, while this attempt runs, rather than once
			// every busy delivery of the endpoint has its outcome stored.
			refill := len(q) == 1 && d.more
			if d.queued[ep] = q[1:]; len(q) == 1 {
				delete(d.queued, ep)
			}
			d.nQueued--
			d.mu.Unlock()
			if refill {
				d.kickPass()
			}
			continue
		}
		for _, left := range q {
			d.release(ep, left.EndpointID+"/"+left.EventID)
		}
		d.nQueued -= len(q)
		delete(d.queued, ep)
		if d.inflight[ep]--; d.inflight[ep] <= 0 {
			delete(d.inflight, ep)
		}
		d.mu.Unlock()
		return
	}
}

// release ends a delivery's busy time (d.mu held) and reports whether its endpoint ep has
// none busy left.
func (d *Dispatcher) release(ep, key string) bool {
	delete(d.busy, key)
	if d.busyOf[ep]--; d.busyOf[ep] > 0 {
		return false
	}
	delete(d.busyOf, ep)
	return true
}

// store stores an attempt's outcome; the delivery stays busy until it is stored, so that no
// read of the due deliveries takes it up again meanwhile. The last outcome of an endpoint's
// busy deliveries kicks the next pass if the last one left due deliveries behind.
func (d *Dispatcher) store(ctx context.Context, ep string, dl tenants.Delivery, store func() error) {
	defer d.running.Done()
	if err := store(); err != nil && ctx.Err() == nil {
		d.log.Error("webhook delivery", "endpoint", dl.EndpointID, "event", dl.EventID, "err", err)
	}
	on := ctx.Err() == nil && (d.Held == nil || d.Held())
	key := dl.EndpointID + "/" + dl.EventID
	d.mu.Lock()
	idle := d.release(ep, key)
	d.finished[key] = d.reads
	kick := idle && d.more && on
	d.mu.Unlock()
	if kick {
		d.kickPass()
	}
}

// kickPass has Run start its next pass at once.
func (d *Dispatcher) kickPass() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// fan creates the deliveries of up to batch waiting events, in one write: one per endpoint of
// the tenant that wants the event's type, is not failing and existed when the event happened.
// It returns how many events it took.
func (d *Dispatcher) fan(ctx context.Context) (int, error) {
	evs, err := d.repo.Unfanned(ctx, batch)
	if err != nil {
		return 0, err
	}
	endpoints := map[string][]tenants.Endpoint{}
	fanned := make([]tenants.Fanned, 0, len(evs))
	for _, ev := range evs {
		eps, ok := endpoints[ev.TenantID]
		if !ok {
			if eps, err = d.repo.Endpoints(ctx, ev.TenantID); err != nil {
				return 0, err
			}
			endpoints[ev.TenantID] = eps
		}
		fanned = append(fanned, tenants.Fanned{Event: ev, Deliveries: ev.DeliveriesTo(eps)})
	}
	if len(fanned) == 0 {
		return 0, nil
	}
	return len(fanned), d.repo.Fan(ctx, fanned)
}
