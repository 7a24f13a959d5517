package mongo

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/event"
)

// cutRecords is the size of the person TestEraseCutThenRepeat erases; the cut comes at the
// claim of the record in the middle. (200 records take FerretDB close to the erasure's timeout:
// it answers a write conditional on a revision by scanning the collection.)
const cutRecords = 40

// TestEraseCutThenRepeat: an erasure of a person with 40 records is cut at its 20th claim
// (the claim's insert sent, its answer lost or not), in real time, no clock moved. The cut
// erasure answers unavailable (503); the client's repeat, sent as soon as the database can be
// reached again, succeeds without waiting out the claims' lease (the claims were given back or
// taken over, not left to lapse) with nothing of the person left, each record counted once, no
// claim left:
//   - cut: the connections are cut once and the next ones work; the repeat runs on the same
//     instance;
//   - outage: the database stays unreachable past the erasure's answer (the claims cannot be
//     given back before it), then comes back; the repeat runs on the other instance, which
//     waits for the failed erasure's instance to give the claims back;
//   - outage, same instance: as outage, the repeat on the instance of the failed erasure,
//     which takes its claims over at once.
func TestEraseCutThenRepeat(t *testing.T) {
	for _, c := range []struct {
		name         string
		outage, same bool
	}{{"cut", false, true}, {"outage", true, false}, {"outage, same instance", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			p := startProxy(t)
			db := freshDB(t)
			var claims atomic.Int64
			mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
				if e.CommandName != "insert" || e.Command.Lookup("insert").StringValue() != colClaims {
					return
				}
				if claims.Add(1) == cutRecords/2 {
					if c.outage {
						p.Refuse(true)
					}
					// Soon after the insert is sent: it may reach the database or not, and its
					// answer is lost either way.
					time.AfterFunc(time.Millisecond, p.Cut)
				}
			}}
			a, err := Open(ctx, Config{URI: p.URI(), Database: db, monitor: mon})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = a.Close(context.Background()) })
			b := openStore(t, p.URI(), db)
			check := openStore(t, server.URI(), db)
			recs := make([]tenants.Record, cutRecords)
			for i := range recs {
				recs[i] = person("a", tenants.KindFormSubmission, fmt.Sprintf("r%03d", i), "ke")
			}
			workers(len(recs), func(i int) { ingest(t, check, recs[i]) })

			start := time.Now()
			_, err = a.Writer.Erase(ctx, eraseChange("ke"))
			if err == nil && !c.outage {
				// The driver's retry of the write past a single cut can absorb it on a loaded
				// machine: then the erasure finished, and what must hold is that it did.
				if left, err := check.Records.Find(ctx, "a", []string{"ke"}); err != nil || len(left) != 0 {
					t.Errorf("an erasure answered success with %d records still found (%v)", len(left), err)
				}
				t.Log("the driver's retry absorbed the cut; the erasure finished")
				return
			}
			if !errors.Is(err, tenants.ErrUnavailable) {
				t.Fatalf("the cut erasure = %v, want unavailable (503)", err)
			}
			t.Logf("the cut erasure answered unavailable after %v (%d claims sent)", time.Since(start).Round(time.Millisecond), claims.Load())
			t.Logf("%d claims left after the cut erasure's answer", claimsLeft(t, check))
			p.Refuse(false)
			repeat := b
			if c.same {
				repeat = a
			}
			start = time.Now()
			var got []tenants.Record
			for try := 1; ; try++ {
				if got, err = repeat.Writer.Erase(ctx, eraseChange("ke")); err == nil {
					break
				}
				if !errors.Is(err, tenants.ErrUnavailable) || time.Since(start) > claimLease/2 {
					t.Fatalf("repeat %d after %v = %v", try, time.Since(start).Round(time.Millisecond), err)
				}
				t.Logf("repeat %d answered %v", try, err)
			}
			took := time.Since(start)
			t.Logf("the repeat succeeded after %v with %d records", took.Round(time.Millisecond), len(got))
			// Not a timing check (the machine may be loaded): the repeat must not have waited
			// for the claims' lease to end, which is what a cut erasure without give-back costs.
			if took >= claimLease {
				t.Errorf("the repeat took %v, the claims' lease (%v): the claims were left to lapse", took, claimLease)
			}
			if left, err := check.Records.Find(ctx, "a", []string{"ke"}); err != nil || len(left) != 0 {
				t.Errorf("after the repeat's success %d records are still found (%v)", len(left), err)
			}
			if n, entries := erased(t, check); n != cutRecords || len(got) != cutRecords {
				t.Errorf("audit names %d records in %d entries and the repeat counted %d, want %d", n, entries, len(got), cutRecords)
			}
			if n := claimsLeft(t, check); n != 0 {
				t.Errorf("%d claims left", n)
			}
		})
	}
}

// TestEraseHeldClaimRetryAfter: a repeat that finds a claim of an erasure that crashed (an
// instance stopped in the middle of it) answers unavailable with the time left until the
// claim's lease ends, and the lease is the erasure's timeout and a small margin.
func TestEraseHeldClaimRetryAfter(t *testing.T) {
	s, clk := eraseFixture(t)
	s.hooks.afterClaim = func() error { return errCrash }
	if _, err := s.Writer.Erase(ctx, eraseChange("ke", "kp")); !errors.Is(err, errCrash) {
		t.Fatalf("Erase = %v, want the crash", err)
	}
	s.hooks.afterClaim = nil
	clk.set(t0.Add(10 * time.Second))
	_, err := s.Writer.Erase(ctx, eraseChange("ke", "kp"))
	var re *tenants.RetryError
	if !errors.As(err, &re) || !errors.Is(err, tenants.ErrUnavailable) {
		t.Fatalf("a repeat within the lease = %v, want unavailable with a retry time", err)
	}
	if want := claimLease - 10*time.Second; re.After != want {
		t.Errorf("Retry-After %v, want %v (the lease's end)", re.After, want)
	}
	if claimLease > eraseTimeout+10*time.Second {
		t.Errorf("the lease is %v for an erasure timeout of %v", claimLease, eraseTimeout)
	}
}
