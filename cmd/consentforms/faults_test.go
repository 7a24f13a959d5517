package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/mongo/faultproxy"
)

// TestFaultsClientRepeats: the server on MongoDB reaches its database through a proxy that
// cuts every connection every 0.1–0.3 s while 8 clients work as a client library would:
// submissions without a submission_id (most of the load), consent reads and erasures of people
// stored before, each answer other than 2xx repeated with the same body after its Retry-After
// (shortened) until it is 2xx. Then, with the cuts off, read back through the server: every
// person submitted once has exactly one record (a repeat never duplicates), every erased person
// none, no answer was a 500 and every refusal was a 503 with Retry-After.
//
// CONSENTFORMS_FAULT_OPS sets the operations (default 120, to keep the suite short; the full
// run is 2000): CONSENTFORMS_TEST_STORE=mongo CONSENTFORMS_FAULT_OPS=2000 go test
// ./cmd/consentforms -run TestFaultsClientRepeats -v logs the figures. They run in rounds of
// at most faultRoundOps, each on a fresh server and database: the stand-in (FerretDB) answers
// every query but an exact _id by reading the whole collection, so past about a thousand
// records a read takes longer than the 0.1 s between cuts and could never finish — a limit of
// the stand-in, not of MongoDB, whose indexes answer in milliseconds.
func TestFaultsClientRepeats(t *testing.T) {
	if mongoURI == "" {
		t.Skip("the MongoDB path under faults: CONSENTFORMS_TEST_STORE=mongo")
	}
	t.Parallel()
	ops := 120
	if v := os.Getenv("CONSENTFORMS_FAULT_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CONSENTFORMS_FAULT_OPS=%q", v)
		}
		ops = n
	}
	var sum faultTally
	for done, r := 0, 0; done < ops; r++ {
		n := min(faultRoundOps, ops-done)
		done += n
		t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) { clientRepeatsRound(t, n, uint64(r), &sum) })
	}
	sum.log(t)
}

// faultRoundOps bounds a round of TestFaultsClientRepeats (see there).
const faultRoundOps = 200

// clientRepeatsRound is one round of TestFaultsClientRepeats: ops operations on a fresh server
// and database behind the fault proxy, the cuts seeded by seed; it adds its figures to sum.
func clientRepeatsRound(t *testing.T, ops int, seed uint64, sum *faultTally) {
	u, err := url.Parse(mongoURI)
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	db := storeEnv(t)[1] // MONGODB_DATABASE=… of a fresh database
	s := startServer(t, "MONGODB_URI="+p.URI(), db)
	tn := openTenant(s)
	k := s.key(tn, "all")

	// The cuts: every connection, every 0.1–0.3 s, until the load is done.
	stop := make(chan struct{})
	var cutter sync.WaitGroup
	cutter.Add(1)
	go func() {
		defer cutter.Done()
		rng := rand.New(rand.NewPCG(7, seed))
		for {
			select {
			case <-stop:
				return
			case <-time.After(100*time.Millisecond + time.Duration(rng.Int64N(int64(200*time.Millisecond)))):
				p.Cut()
			}
		}
	}()

	type kind int
	const (
		intake kind = iota
		read
		erasure
	)
	var (
		answered, refused, repeats, status500, noRetryAfter, transport atomic.Int64
		mu                                                             sync.Mutex
		stored                                                         []string // people acknowledged, not erased
		erasedPeople                                                   []string
		worst                                                          time.Duration
	)
	// until sends the request until it is answered 2xx, as a client repeats a 5xx.
	until := func(method, path string, body any) {
		start := time.Now()
		for try := 0; ; try++ {
			if try > 0 {
				repeats.Add(1)
			}
			r, err := send(s, method, path, k, body)
			if err != nil {
				transport.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			answered.Add(1)
			if r.Status/100 == 2 {
				mu.Lock()
				worst = max(worst, time.Since(start))
				mu.Unlock()
				return
			}
			refused.Add(1)
			if r.Status == 500 {
				status500.Add(1)
				t.Errorf("%s %s answered 500: %s", method, path, r.Body)
			}
			if r.Status != 503 && r.Status != 500 {
				t.Errorf("%s %s answered %d under cuts: %s", method, path, r.Status, r.Body)
				return
			}
			after, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || after < 1 {
				noRetryAfter.Add(1)
			}
			if time.Since(start) > time.Minute {
				t.Errorf("%s %s not answered 2xx within a minute of repeats", method, path)
				return
			}
			time.Sleep(100 * time.Millisecond) // the client's Retry-After, shortened for the test
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), seed))
			for {
				i := int(next.Add(1))
				if i > ops {
					return
				}
				op := intake
				mu.Lock()
				if n := len(stored); n > 4 {
					switch r := rng.IntN(10); {
					case r == 0:
						op = erasure
					case r == 1:
						op = read
					}
				}
				var victim string
				if op != intake {
					j := rng.IntN(len(stored))
					victim = stored[j]
					if op == erasure {
						stored = append(stored[:j], stored[j+1:]...)
					}
				}
				mu.Unlock()
				switch op {
				case intake:
					email := fmt.Sprintf("p%d@example.org", i)
					until("POST", "/api/v1/forms/accept-submission", map[string]any{"form_id": "petition", "email": email,
						"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "2y", "consent_to_general_contact_email": true})
					mu.Lock()
					stored = append(stored, email)
					mu.Unlock()
				case read:
					until("GET", "/api/v1/consents?email="+url.QueryEscape(victim), nil)
				case erasure:
					until("POST", erasePath, map[string]any{"email": victim})
					mu.Lock()
					erasedPeople = append(erasedPeople, victim)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	cutter.Wait()
	cuts := p.Cuts()

	dups, lost, left := 0, 0, 0
	for _, email := range stored {
		switch n := len(at(consentsOf(t, s, k, "email", email), "submissions").([]any)); {
		case n == 0:
			lost++
		case n > 1:
			dups++
		}
	}
	for _, email := range erasedPeople {
		if n := len(at(consentsOf(t, s, k, "email", email), "submissions").([]any)); n != 0 {
			left++
		}
	}
	sum.add(faultFigures{ops: ops, cuts: cuts, answers: answered.Load(), refused: refused.Load(), status500: status500.Load(),
		noRetryAfter: noRetryAfter.Load(), repeats: repeats.Load(), transport: transport.Load(), stored: len(stored), dups: dups,
		lost: lost, erased: len(erasedPeople), left: left, worst: worst})
	if dups > 0 || lost > 0 || left > 0 || status500.Load() > 0 || noRetryAfter.Load() > 0 {
		t.Errorf("%d duplicated, %d lost, %d erased people with records left, %d answers 500, %d refusals without Retry-After",
			dups, lost, left, status500.Load(), noRetryAfter.Load())
	}
}

// faultTally sums the figures of TestFaultsClientRepeats's rounds.
type faultTally struct {
	mu sync.Mutex
	faultFigures
}

// faultFigures are one round's figures, or their sums.
type faultFigures struct {
	ops                                                                 int
	cuts, answers, refused, status500, noRetryAfter, repeats, transport int64
	stored, dups, lost, erased, left                                    int
	worst                                                               time.Duration
}

func (f *faultTally) add(r faultFigures) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops += r.ops
	f.cuts += r.cuts
	f.answers += r.answers
	f.refused += r.refused
	f.status500 += r.status500
	f.noRetryAfter += r.noRetryAfter
	f.repeats += r.repeats
	f.transport += r.transport
	f.stored += r.stored
	f.dups += r.dups
	f.lost += r.lost
	f.erased += r.erased
	f.left += r.left
	f.worst = max(f.worst, r.worst)
}

func (f *faultTally) log(t *testing.T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t.Logf("%d operations, %d cuts, %d answers (%d refused, %d of them 500, %d without Retry-After), %d repeats, %d transport errors; "+
		"%d people stored: %d duplicated, %d lost; %d erased: %d with records left; slowest operation until 2xx %v",
		f.ops, f.cuts, f.answers, f.refused, f.status500, f.noRetryAfter, f.repeats, f.transport,
		f.stored, f.dups, f.lost, f.erased, f.left, f.worst.Round(time.Millisecond))
}
