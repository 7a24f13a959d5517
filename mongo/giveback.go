package mongo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// giveBack removes the claims of a failed erasure whose audit entry does not exist, so that a
// repeat takes the records at once instead of waiting out the lease. Where the entry exists
// or cannot be looked up, the claims stay: the records were counted, and a repeat strips them.
//
// The failure is often a cut connection, and the removal meets the same cut: it is repeated
// for up to compensateFor before the erasure answers. Claims still held then are handed to
// gaveUp: a goroutine keeps removing them until their lease would end anyway (the database
// answering again ends it at once), and meanwhile a repeat on this instance takes them over.
func (e *erasure) giveBack(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if e.dropRepeating(ctx, time.Now().Add(compensateFor)) {
		return
	}
	end := time.Now().Add(claimLease)
	g := e.w.gaveUp
	if !g.add(e.id, end) {
		return // the store is closing: what is left, the lease ends
	}
	g.wg.Go(func() {
		bctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(g.closing, cancel)
		defer stop()
		if e.dropRepeating(bctx, end) {
			g.remove(e.id)
		}
	})
}

// dropRepeating repeats dropClaims until it succeeds or until, reporting whether it did.
// Every unavailable error is repeated: a server not found yet is what a cut leaves for a while.
func (e *erasure) dropRepeating(ctx context.Context, until time.Time) bool {
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	for try := 0; ; try++ {
		err := e.dropClaims(ctx)
		switch {
		case err == nil:
			return true
		case !errors.Is(err, tenants.ErrUnavailable) || !pause(ctx, try, until):
			return false
		}
	}
}

// dropClaims removes this erasure's claims unless its audit entry may exist. The claims are
// found by the erasure's id, not by the ones it knows it won: a claim whose insert reached the
// database while its answer was lost is removed too.
func (e *erasure) dropClaims(ctx context.Context) error {
	if e.appending {
		if done, err := e.w.s.Audit.settled(ctx, e.ch.TenantID, e.id); err != nil || done {
			return err
		}
	}
	return e.w.s.claims.dropErasure(ctx, e.ch.TenantID, e.id)
}

// gaveUp are this process's failed erasures whose claims could not all be given back before
// they answered, each until the end of its claims' lease: they run no more, so a repeat here
// takes their claims over at once; elsewhere a repeat waits until the goroutine giving them
// back reaches the database.
type gaveUp struct {
	mu  sync.Mutex
	ids map[string]time.Time
	// closing ends the goroutines giving claims back, when the store closes.
	closing context.Context
	close   context.CancelFunc
	wg      sync.WaitGroup
}

func newGaveUp() *gaveUp {
	ctx, cancel := context.WithCancel(context.Background())
	return &gaveUp{ids: map[string]time.Time{}, closing: ctx, close: cancel}
}

// add records erasure id until end; false once the store is closing.
func (g *gaveUp) add(id string, end time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing.Err() != nil {
		return false
	}
	now := time.Now()
	for k, until := range g.ids {
		if now.After(until) {
			delete(g.ids, k)
		}
	}
	g.ids[id] = end
	return true
}

func (g *gaveUp) remove(id string) {
	g.mu.Lock()
	delete(g.ids, id)
	g.mu.Unlock()
}

// has reports whether erasure id failed here and its claims may still be held.
func (g *gaveUp) has(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	end, ok := g.ids[id]
	return ok && time.Now().Before(end)
}

// stop ends the goroutines giving claims back and waits for them.
func (g *gaveUp) stop() {
	g.mu.Lock()
	g.close()
	g.mu.Unlock()
	g.wg.Wait()
}
