package mongo

import (
	"context"
	"errors"
	"fmt"
	"github.com/consentforms/consentforms/dispatch"
	"github.com/consentforms/consentforms/tenants/webhook"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/mongo/faultproxy"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/storetest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The fault runs: the service's stores reach FerretDB through a proxy that cuts connections at
// random points of the byte stream (seeded: CONSENTFORMS_FAULT_SEED repeats a run), two stores
// (two instances) share one database, and every failed call is repeated, as a client repeats
// a 5xx, until it succeeds. After each run, with the faults off, a store connected directly
// checks the promises: no acknowledged write lost, no duplicate from a repeat, no erasure
// answered success with personal data left, each expiry recorded once, the chain whole.
//
// CONSENTFORMS_FAULT_OPS sets the operations per path (default faultOpsDefault, to keep go
// test ./mongo short; the full run is 2000), CONSENTFORMS_FAULT_SECONDS the length of the
// two-instance mixed load (default 3 s; the full run is 60), CONSENTFORMS_FAULT_ROUND the
// operations per round (default faultRound; larger rounds make each operation slower on
// FerretDB, and so widen the windows between a cut and what the server still does).

const faultOpsDefault = 40

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// cutP is the chance that the proxy cuts a connection after a chunk: most operations take
// several round trips, so about one in ten meets a cut.
const cutP = 0.01

// faultEnv is FerretDB behind a proxy, two instances through it on one database, and a
// checker connected directly.
type faultEnv struct {
	proxy    *faultproxy.Proxy
	a, b     *Store
	check    *Store
	clk      *skewClock
	seed     uint64
	failures atomic.Int64 // calls answered an error (a 5xx), each then repeated
	other    atomic.Int64 // of those, errors that are not "unavailable" (a 500, not a 503)
	leases   atomic.Int64 // repeats that waited out an erasure claim's lease
}

// skewClock is the real clock moved forward by what the test skips (a claim's lease).
type skewClock struct{ skew atomic.Int64 }

func (c *skewClock) now() time.Time       { return time.Now().Add(time.Duration(c.skew.Load())) }
func (c *skewClock) skip(d time.Duration) { c.skew.Add(int64(d)) }

// faultRound bounds the operations one database takes: FerretDB reads every filter but an
// exact _id by decoding the whole collection, so an operation costs in proportion to what the
// round stored before it, and a round's cost grows with the square of its size (MongoDB would
// not need it). A path's operations run in rounds of at most this many, each on a fresh
// database: 200 operations take eight rounds of 25, an eighth of the time one round of 200
// took (most of a round's time is FerretDB's scans, not waits).
const faultRound = 25

// tally sums a path's counts over its rounds.
type tally struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *tally) add(name string, v int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int64{}
	}
	c.n[name] += v
}

// faultRounds runs path with CONSENTFORMS_FAULT_OPS operations (default faultOpsDefault) in
// rounds of at most faultRound, each on a fresh environment, and logs the sums.
func faultRounds(t *testing.T, path func(t *testing.T, env *faultEnv, n int, sum *tally)) {
	total := envInt(t, "CONSENTFORMS_FAULT_OPS", faultOpsDefault)
	round := envInt(t, "CONSENTFORMS_FAULT_ROUND", faultRound)
	var sum tally
	for r, done := 0, 0; done < total; r++ {
		n := min(round, total-done)
		done += n
		if !t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) {
			env := newFaultEnv(t, uint64(r))
			path(t, env, n, &sum)
			sum.add("ops", int64(n))
			sum.add("cuts", env.proxy.Cuts())
			sum.add("errors answered and repeated", env.failures.Load())
			sum.add("errors not 503", env.other.Load())
			sum.add("lease waits", env.leases.Load())
		}) {
			break
		}
	}
	t.Logf("totals: %v", sum.n)
}

// startProxy starts a fault proxy in front of the test binary's FerretDB, closed when the
// test ends.
func startProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	u, err := url.Parse(server.URI())
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func newFaultEnv(t *testing.T, round uint64) *faultEnv {
	t.Helper()
	p := startProxy(t)
	var err error
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CONSENTFORMS_FAULT_SEED"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("CONSENTFORMS_FAULT_SEED=%d (round %d)", seed, round)
	seed += round * 1000
	db := freshDB(t)
	env := &faultEnv{proxy: p, seed: seed, clk: &skewClock{}}
	env.a, env.b = openStore(t, p.URI(), db), openStore(t, p.URI(), db)
	env.check = openStore(t, server.URI(), db)
	for _, s := range []*Store{env.a, env.b, env.check} {
		s.now = env.clk.now
		s.hooks.claimWait = 100 * time.Millisecond
	}
	if err := env.check.Outbox.InsertEndpoint(ctx, tenants.Endpoint{ID: "ep", TenantID: "f", URL: "https://example.org/hook",
		Events: []string{"submission.created"}, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	return env
}

// faults turns the random cuts on (a seed derived from the run's and the path's) or off.
// Ingestion gets more: a batch serves several at once, and the writer repeats what a cut
// interrupted before anything reaches the caller.
func (env *faultEnv) faults(path int, on bool) {
	switch {
	case !on:
		env.proxy.Chaos(0, 0)
	case path == 1:
		env.proxy.Chaos(env.seed+uint64(path), 4*cutP)
	default:
		env.proxy.Chaos(env.seed+uint64(path), cutP)
	}
}

// leaseAfter is how many unavailable answers in a row, each after the erasure waited
// claimWait for the claim, a repeat takes before the lease is skipped.
const leaseAfter = 2

// until repeats fn, as a client repeats a 5xx, until it succeeds. A repeat that finds an
// erasure's claim again skips the claim's lease on the stores' clock instead of waiting it
// out: in these runs one caller erases a person, one try after another, so a claim still
// held after a try answered unavailable was left by an earlier try that stopped (or by its
// command landing late), never by an erasure still running.

func (env *faultEnv) until(t *testing.T, what string, fn func() error) {
	t.Helper()
	busy := 0
	for try := 1; ; try++ {
		err := fn()
		if err == nil {
			return
		}
		env.failures.Add(1)
		if !errors.Is(err, tenants.ErrUnavailable) {
			if env.other.Add(1) <= 3 {
				t.Logf("%s answered an error that is not 503: %v", what, err)
			}
		}
		if errors.Is(err, errErasing) {
			if busy++; busy == leaseAfter {
				env.clk.skip(claimLease)
				env.leases.Add(1)
				busy = 0
			}
		}
		if try == 500 {
			t.Fatalf("%s: still failing after %d tries: %v", what, try, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pick is one of the two instances.
func (env *faultEnv) pick(i int) *Store {
	if i%2 == 0 {
		return env.a
	}
	return env.b
}

// workers runs fn(i) for i in [0, n) on 4 goroutines.
func workers(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

func (env *faultEnv) verifyChain(t *testing.T) {
	t.Helper()
	rep, err := tenants.VerifyChains(ctx, env.check.AuditChains, "f", time.Now())
	if err != nil || !rep.OK {
		t.Fatalf("audit verify after the run = %+v, %v", rep, err)
	}
}

func faultPerson(id, key string) tenants.Record {
	r := person("f", tenants.KindFormSubmission, id, key)
	r.TenantID, r.ID = "f", tenants.RecordID("f", tenants.KindFormSubmission, id)
	return r
}

func faultIngestion(r tenants.Record) tenants.Ingestion {
	return tenants.Ingestion{Record: r,
		Audit:  []tenants.AuditEntry{{Time: r.CreatedAt, TenantID: "f", Actor: "key:k1", Action: tenants.ActionConsentGranted, RecordIDs: []string{r.PublicID}}},
		Events: []tenants.OutboxEvent{{ID: r.ID + "#created", TenantID: "f", Type: "submission.created", Time: r.CreatedAt, Payload: "{}"}}}
}

// TestFaultsIngest: ingestions under cuts, half repeated with their submission id (the same
// record), half without (a new record each try): every acknowledged one is stored once, with
// its audit entry and its event.
func TestFaultsIngest(t *testing.T) { faultRounds(t, faultsIngest) }

func faultsIngest(t *testing.T, env *faultEnv, n int, sum *tally) {
	env.faults(1, true)
	workers(n, func(i int) {
		key := fmt.Sprintf("ki%d", i)
		try := 0
		env.until(t, "ingest", func() error {
			id := fmt.Sprintf("i%d", i)
			if i%2 == 1 { // no submission id: each try is a new record
				try++
				id = fmt.Sprintf("i%d-%d", i, try)
			}
			stored, err := env.pick(i+try).Writer.Ingest(ctx, faultIngestion(faultPerson(id, key)))
			if err == nil && !stored && i%2 == 1 {
				t.Errorf("ingestion %d: a new record answered as a repeat", i)
			}
			return err
		})
	})
	env.faults(0, false)
	lost, dup := 0, 0
	for i := range n {
		recs, err := env.check.Records.Find(ctx, "f", []string{fmt.Sprintf("ki%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(recs) == 0:
			lost++
		case len(recs) > 1:
			dup++
		}
		for _, r := range recs {
			if ok, err := env.check.Audit.exists(ctx, "f", ingestionEntryID(r, tenants.ActionConsentGranted)); err != nil || !ok {
				t.Errorf("record %s has no audit entry (%v)", r.PublicID, err)
			}
			if err := env.check.Outbox.events.FindOne(ctx, bson.D{{Key: "_id", Value: r.ID + "#created"}}).Err(); err != nil {
				t.Errorf("record %s has no outbox event: %v", r.PublicID, err)
			}
		}
	}
	events, _ := env.check.Outbox.events.CountDocuments(ctx, bson.D{})
	sum.add("lost", int64(lost))
	sum.add("duplicated", int64(dup))
	sum.add("records without their event", int64(n)-events)
	t.Logf("ingest: %d ops, %d cuts, %d errors answered (%d not 503) and repeated; %d lost, %d duplicated, %d events for %d records",
		n, env.proxy.Cuts(), env.failures.Load(), env.other.Load(), lost, dup, events, n)
	if lost > 0 || dup > 0 || events != int64(n) {
		t.Errorf("%d acknowledged ingestions lost, %d stored twice, %d events for %d records", lost, dup, events, n)
	}
	env.verifyChain(t)
}

// TestFaultsEraseRevoke: erasures and revocations under cuts, each repeated until it
// succeeds: an erasure answered success has left none of the person's records found, each
// record is audited as erased once, each revocation is stored with its consent.revoked entry;
// the chain verifies.
func TestFaultsEraseRevoke(t *testing.T) { faultRounds(t, faultsEraseRevoke) }

func faultsEraseRevoke(t *testing.T, env *faultEnv, n int, sum *tally) {
	var recs []tenants.Record
	for i := range n {
		recs = append(recs, faultPerson(fmt.Sprintf("e%d", i), fmt.Sprintf("ke%d", i)), faultPerson(fmt.Sprintf("e%d-b", i), fmt.Sprintf("ke%d", i)))
	}
	for _, r := range recs {
		if _, err := env.check.Writer.Ingest(ctx, faultIngestion(r)); err != nil {
			t.Fatal(err)
		}
	}
	env.faults(2, true)
	var early atomic.Int64
	var counted atomic.Int64
	workers(n, func(i int) {
		key := fmt.Sprintf("ke%d", i)
		s := env.pick(i)
		// Revoke first, then erase, each to success.
		env.until(t, "revoke", func() error {
			_, err := s.Writer.Revoke(ctx, faultChange(key, func(rec *tenants.Record) (bool, error) {
				return rec.Consents.RevokeGeneralContact(t0.Add(time.Minute), "api"), nil
			}, tenants.ActionConsentRevoked))
			return err
		})
		env.until(t, "erase", func() error {
			got, err := s.Writer.Erase(ctx, faultChange(key, func(rec *tenants.Record) (bool, error) {
				rec.Contact, rec.MatchKeys, rec.AnonymisedAt = tenants.Contact{}, nil, &t0
				return true, nil
			}, tenants.ActionGDPRAnonymised))
			if err == nil {
				counted.Add(int64(len(got)))
				// The answer is success: nothing of the person may be found any more.
				if left, ferr := env.check.Records.Find(ctx, "f", []string{key}); ferr != nil || len(left) > 0 {
					early.Add(1)
				}
			}
			return err
		})
	})
	env.faults(0, false)
	named := map[string]int{}
	entries, err := env.check.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
	if err != nil {
		t.Fatal(err)
	}
	twice := 0
	for _, e := range entries {
		for _, id := range e.RecordIDs {
			if named[id]++; named[id] == 2 {
				twice++
			}
		}
	}
	revokedNamed := map[string]bool{}
	revocations, err := env.check.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentRevoked})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range revocations {
		for _, id := range e.RecordIDs {
			revokedNamed[id] = true
		}
	}
	notRevoked, notAudited := 0, 0
	for _, r := range recs {
		if !revokedNamed[r.PublicID] {
			notAudited++
		}
		got, err := env.check.Records.Get(ctx, "f", r.Kind, r.PublicID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Consents.GeneralContactEmail.Status != tenants.StatusRevoked {
			notRevoked++
		}
	}
	sum.add("records", int64(len(recs)))
	sum.add("erasures answered success with data left", early.Load())
	sum.add("records audited as erased", int64(len(named)))
	sum.add("records audited as erased twice", int64(twice))
	sum.add("records counted in success answers", counted.Load())
	sum.add("revocations lost", int64(notRevoked))
	sum.add("revocations not audited", int64(notAudited))
	t.Logf("erase+revoke: %d persons (%d records), %d cuts, %d errors answered (%d not 503) and repeated, %d lease waits; "+
		"%d erasures answered success with data left, %d records audited as erased (%d twice), %d counted in answers, %d revocations lost, %d without their entry",
		n, len(recs), env.proxy.Cuts(), env.failures.Load(), env.other.Load(), env.leases.Load(), early.Load(), len(named), twice, counted.Load(), notRevoked, notAudited)
	if early.Load() > 0 || len(named) != len(recs) || twice > 0 || notRevoked > 0 || notAudited > 0 {
		t.Errorf("%d erasures answered success with data left; %d of %d records audited as erased, %d twice; %d revocations lost, %d without their consent.revoked entry",
			early.Load(), len(named), len(recs), twice, notRevoked, notAudited)
	}
	env.verifyChain(t)
}

func faultChange(key string, apply func(*tenants.Record) (bool, error), action string) tenants.Change {
	return tenants.Change{TenantID: "f", MatchKeys: []string{key}, Apply: apply,
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			ids := make([]string, len(changed))
			for i, r := range changed {
				ids[i] = r.PublicID
			}
			return []tenants.AuditEntry{{Time: t0, TenantID: "f", Actor: "key:k1", Action: action, RecordIDs: ids}}
		}}
}

// TestFaultsExpiry: the expiry job on both instances at once under cuts, each run repeated
// until it succeeds: every due consent is stored as expired with one consent.expired entry,
// and the runs count no expiry twice.
func TestFaultsExpiry(t *testing.T) { faultRounds(t, faultsExpiry) }

func faultsExpiry(t *testing.T, env *faultEnv, n int, sum *tally) {
	soon := t0.Add(time.Minute)
	for i := range n {
		r := faultPerson(fmt.Sprintf("x%d", i), fmt.Sprintf("kx%d", i))
		r.Consents.PrimaryPurpose.Deadline = &soon
		if _, err := env.check.Writer.Ingest(ctx, faultIngestion(r)); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(time.Hour)
	run := expiryRun(now, 7)
	env.faults(3, true)
	var counted atomic.Int64
	workers(4, func(i int) {
		env.until(t, "expire", func() error {
			c, err := env.pick(i).Writer.Expire(ctx, run)
			counted.Add(int64(c))
			return err
		})
	})
	env.faults(0, false)
	list, err := env.check.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	for i := range n {
		got, _ := env.check.Records.Get(ctx, "f", tenants.KindFormSubmission, fmt.Sprintf("x%d", i))
		if got.Consents.PrimaryPurpose.Status != tenants.StatusExpired {
			stale++
		}
	}
	sum.add("consent.expired entries", int64(len(list)))
	sum.add("expiries counted", counted.Load())
	sum.add("not stored as expired", int64(stale))
	t.Logf("expiry: %d consents, 4 runs on 2 instances, %d cuts, %d errors repeated; %d consent.expired entries, %d counted, %d not stored as expired",
		n, env.proxy.Cuts(), env.failures.Load(), len(list), counted.Load(), stale)
	if len(list) != n || counted.Load() > int64(n) || stale > 0 {
		t.Errorf("%d consent.expired entries and %d counted for %d expiries; %d not stored as expired", len(list), counted.Load(), n, stale)
	}
	env.verifyChain(t)
}

// TestFaultsAuditChain: appends from both instances under cuts, repeated until they succeed
// (derived ids, as jobs use): each entry is stored once and the chain verifies.
func TestFaultsAuditChain(t *testing.T) { faultRounds(t, faultsAuditChain) }

func faultsAuditChain(t *testing.T, env *faultEnv, n int, sum *tally) {
	env.faults(4, true)
	workers(n, func(i int) {
		e := chainEntry("f", i)
		e.ID = fmt.Sprintf("job:%d", i)
		env.until(t, "append", func() error { return env.pick(i).Audit.Append(ctx, e) })
	})
	env.faults(0, false)
	count, _ := env.check.Audit.c.CountDocuments(ctx, bson.D{{Key: "tenantId", Value: "f"}})
	sum.add("entries stored", count)
	t.Logf("audit chain: %d appends, %d cuts, %d errors repeated; %d entries", n, env.proxy.Cuts(), env.failures.Load(), count)
	if count != int64(n) {
		t.Errorf("%d entries stored for %d appends", count, n)
	}
	env.verifyChain(t)
}

// TestTwoInstancesMixedLoad: two instances on one database under ingestions with short
// deadlines (repeated with their submission id until acknowledged), erasures and the expiry
// job running on both: no acknowledged ingestion lost, one consent.expired per expired
// consent, the chain whole.
func TestTwoInstancesMixedLoad(t *testing.T) {
	env := newFaultEnv(t, 0)
	d := time.Duration(envInt(t, "CONSENTFORMS_FAULT_SECONDS", 3)) * time.Second
	rng := rand.New(rand.NewPCG(env.seed, 7))
	var rmu sync.Mutex
	deadline := func() time.Duration {
		rmu.Lock()
		defer rmu.Unlock()
		return time.Duration(1+rng.IntN(30)) * time.Millisecond
	}
	start := time.Now()
	stop := make(chan struct{})
	expiry := func(now time.Time) tenants.ExpiryRun { return expiryRun(now, 50) }
	var jobs sync.WaitGroup
	var counted atomic.Int64
	for _, s := range []*Store{env.a, env.b} {
		jobs.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				c, _ := s.Writer.Expire(ctx, expiry(time.Now()))
				counted.Add(int64(c))
			}
		})
	}
	var acked atomic.Int64
	var ops atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; time.Since(start) < d; i++ {
				id := fmt.Sprintf("m%d-%d", w, i)
				r := faultPerson(id, "km-"+id)
				due := time.Now().Add(time.Duration(i%5) * 100 * time.Millisecond)
				r.Consents.PrimaryPurpose.Deadline = &due
				s := env.pick(w + i)
				env.until(t, "ingest", func() error {
					c, cancel := context.WithTimeout(ctx, deadline())
					defer cancel()
					_, err := s.Writer.Ingest(c, faultIngestion(r))
					if errors.Is(err, context.DeadlineExceeded) {
						return fmt.Errorf("%w: deadline", tenants.ErrUnavailable)
					}
					return err
				})
				acked.Add(1)
				ops.Add(1)
				if i%7 == 3 {
					env.until(t, "erase", func() error {
						_, err := s.Writer.Erase(ctx, faultChange("km-"+id, func(rec *tenants.Record) (bool, error) {
							rec.Contact, rec.MatchKeys, rec.AnonymisedAt = tenants.Contact{}, nil, &t0
							return true, nil
						}, tenants.ActionGDPRAnonymised))
						return err
					})
					ops.Add(1)
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(600 * time.Millisecond) // every deadline passed
	close(stop)
	jobs.Wait()
	c, err := env.check.Writer.Expire(ctx, expiry(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	counted.Add(int64(c))
	n := int(acked.Load())
	stored, err := env.check.Records.Count(ctx, "f", tenants.KindFormSubmission)
	if err != nil {
		t.Fatal(err)
	}
	list, err := env.check.Audit.List(ctx, "f", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil {
		t.Fatal(err)
	}
	perRecord := map[string]int{}
	for _, e := range list {
		perRecord[e.RecordIDs[0]]++
	}
	twice := 0
	for _, k := range perRecord {
		if k > 1 {
			twice++
		}
	}
	t.Logf("two instances, %v: %d operations (%d ingestions acknowledged, %d answers repeated), %d records, %d consent.expired entries (%d twice), %d counted by the jobs",
		d, ops.Load(), n, env.failures.Load(), stored, len(list), twice, counted.Load())
	if stored != int64(n) || len(list) != n || twice > 0 || counted.Load() != int64(n) {
		t.Errorf("%d records for %d acknowledged; %d consent.expired entries (%d twice) and %d counted for %d expiries",
			stored, n, len(list), twice, counted.Load(), n)
	}
	env.verifyChain(t)
}

// TestContractThroughProxy runs the store contract suite on MongoDB through the proxy with
// latency on every chunk: the store keeps its promises on a slow network too. (The suite ran
// a second time directly, which checked nothing this run does not: the proxy only delays the
// bytes. The SQLite store runs the same suite in sqlite.TestContract.)
func TestContractThroughProxy(t *testing.T) {
	p := startProxy(t)
	p.Latency(200 * time.Microsecond)
	storetest.Run(t, func(t *testing.T) tenants.Stores { return openStore(t, p.URI(), freshDB(t)).Stores() })
}

// TestFaultsOutbox: the outgoing webhook dispatcher of both instances, each under the dispatch
// lease as the server runs it, under cuts, each pass repeated: every event in the outbox is
// delivered (at least once: a delivery whose "delivered" mark was cut, or that a lease changing
// hands overlapped, is sent again) and none is left pending.
func TestFaultsOutbox(t *testing.T) { faultRounds(t, faultsOutbox) }

func faultsOutbox(t *testing.T, env *faultEnv, n int, sum *tally) {
	var mu sync.Mutex
	got := map[string]int{}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	defer hook.Close()
	if err := env.check.Outbox.InsertEndpoint(ctx, tenants.Endpoint{ID: "ep-out", TenantID: "f", URL: hook.URL,
		Events: []string{"consent.changed"}, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	events := make([]tenants.OutboxEvent, n)
	for i := range events {
		events[i] = tenants.OutboxEvent{ID: fmt.Sprintf("ev%04d", i), TenantID: "f", Type: "consent.changed", Time: time.Now(), Payload: `{"n":1}`}
	}
	if err := env.check.Outbox.insertEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	cfg := dispatch.Config{Policy: webhook.Policy{AllowInsecure: true}, Base: time.Millisecond, MaxDelay: 10 * time.Millisecond, Timeout: 2 * time.Second}
	log := slog.New(slog.DiscardHandler)
	env.faults(5, true)
	var wg sync.WaitGroup
	leaseCtx, stopLeases := context.WithCancel(ctx)
	defer stopLeases()
	for i := range 2 {
		// As the server runs it: the instance holding the dispatch lease dispatches.
		lease := tenants.NewLease(env.pick(i).Leases, "webhook-dispatch", fmt.Sprint("instance", i), 600*time.Millisecond, nil)
		go lease.Run(leaseCtx)
		d := dispatch.NewDispatcher(env.pick(i).Outbox, cfg, log, time.Now)
		d.Held = lease.Held
		wg.Go(func() {
			for range 500 {
				if d.Held() {
					env.until(t, "dispatch", func() error { return d.Pass(ctx) })
				}
				mu.Lock()
				all := len(got) == n
				mu.Unlock()
				if all {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	env.faults(0, false)
	// Whatever a cut left pending is sent by the next passes. A delivery whose endpoint was busy
	// waits a timeout's length (cfg.Timeout) out of the due set, so the passes go on until nothing
	// is due within a minute, however long that takes (bounded).
	d := dispatch.NewDispatcher(env.check.Outbox, cfg, log, time.Now)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if err := d.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		due, err := env.check.Outbox.Due(ctx, time.Now().Add(time.Minute), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	again := 0
	for _, k := range got {
		again += k - 1
	}
	left, _ := env.check.Outbox.Due(ctx, time.Now().Add(time.Minute), 10, nil)
	sum.add("events delivered", int64(len(got)))
	sum.add("deliveries sent again", int64(again))
	sum.add("deliveries left pending", int64(len(left)))
	t.Logf("outbox: %d events, 2 dispatchers, %d cuts, %d errors repeated; %d delivered, %d sent again, %d left pending",
		n, env.proxy.Cuts(), env.failures.Load(), len(got), again, len(left))
	if len(got) != n || len(left) > 0 {
		t.Errorf("%d of %d events delivered, %d deliveries left pending", len(got), n, len(left))
	}
}
