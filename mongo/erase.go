package mongo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// claimLease is how long an erasure's claim on a record holds while its audit entry is
// missing: past it, the erasure that claimed has stopped (eraseTimeout ended it, and its last
// command had claimMargin to land), and another may take the record over and count it. An
// erasure that fails gives its claims back (giveback.go), so the lease is waited out only where
// an instance stopped in the middle of one.
const claimLease = eraseTimeout + claimMargin

// eraseTimeout bounds one erasure, inside claimLease, so that an erasure still running never
// sees its claims taken over.
const eraseTimeout = 30 * time.Second

// claimMargin is what claimLease allows past eraseTimeout: for a command sent just before the
// erasure's deadline to land, and for the instances' clocks to differ.
const claimMargin = 5 * time.Second

// claimWait bounds how long an erasure waits for another one that holds a claim on a record
// it must anonymise: past it, it answers unavailable (503, the client repeats), never success
// with the record left as it was.
const claimWait = 5 * time.Second

// claimPoll is how often a waiting erasure looks at the claim again.
const claimPoll = 20 * time.Millisecond

// errErasing answers an erasure that found a record held by another erasure, still running or
// stopped within its lease, and could not wait for it: a repeat finishes the work.
var errErasing = fmt.Errorf("erase: a matching record is being erased by another call: %w", tenants.ErrUnavailable)

// erasing is errErasing with the time left until the claim's lease ends, when a repeat takes
// the record over at the latest (the 503's Retry-After).
func erasing(left time.Duration) error {
	return &tenants.RetryError{Err: errErasing, After: max(left, time.Second)}
}

// eraseHooks stop an erasure between its steps; set by tests only. afterClaim and afterAudit
// stand for a crash (the erasure returns, leaving what it wrote); failAudit for a failed
// audit append (the erasure returns its error after giving back its claims).
type eraseHooks struct {
	afterClaim, afterAudit, failAudit func() error
	// claimWait, when set, replaces claimWait.
	claimWait time.Duration
}

// Erase implements tenants.Writer without a transaction, so that each record is counted by
// one call only, whatever runs at once and wherever a call stops, and so that an erasure that
// answers success has anonymised every matching record:
//
//  1. Find the tenant's records carrying the keys and apply ch to copies of them; if any
//     Apply fails, nothing has been written.
//  2. Claim each record for this erasure, whose id is E (see claims). A record claimed by
//     another erasure X counts for X: when X's audit entry exists, X counted it and only its
//     stripping is left to finish; when it does not and the claim is older than claimLease, X
//     stopped before its audit entry and this erasure takes the record over and counts it; a
//     fresh claim belongs to an erasure still running: this one waits for it (claimWait) and
//     looks again, and answers unavailable when it is still held.
//  3. Append ch.Audit of the records claimed here, the first entry under id E (more as E-1,
//     E-2, …), so that whether E was counted can be looked up.
//  4. Replace each record claimed here, and each left to finish, by its changed version,
//     conditional on the revision read; stripped, it no longer carries the keys and is not
//     found. Then remove its claims.
//
// An erasure that fails before its audit entry exists gives its claims back, every claim
// carrying its id, those whose insert's answer was lost included (giveBack), so that a repeat
// right after it takes the records at once. A crash after 2 leaves claims without an entry: a
// repeat within the lease waits and answers unavailable, one after it counts them once. A stop
// after 3 leaves audited records unstripped: a repeat strips them, counting nothing. A stop in
// 4 leaves claims of records no longer found, which nothing reads. (An Audit returning no entry
// leaves nothing to look up: after a stop in 3–4 a repeat past the lease would count its
// records again.)
func (w *Writer) Erase(ctx context.Context, ch tenants.Change) (_ []tenants.Record, err error) {
	ctx, cancel := context.WithTimeout(ctx, eraseTimeout)
	defer cancel()
	todo, err := w.changes(ctx, ch)
	if err != nil {
		return nil, err
	}
	now := w.s.now()
	e := &erasure{w: w, ch: ch, id: tenants.NewAuditID(now), now: now, audited: map[string]bool{}}
	crashed := false
	defer func() {
		if err != nil && !crashed {
			e.giveBack(ctx)
		}
	}()
	// In one order, so that erasures of overlapping records wait for each other in turn,
	// never each for a record the other holds.
	slices.SortFunc(todo, func(a, b change) int { return strings.Compare(a.doc.ID, b.doc.ID) })
	var mine, finish []change
	for _, c := range todo {
		c, whose, err := e.claim(ctx, c)
		switch {
		case err != nil:
			return nil, err
		case whose == ours:
			mine = append(mine, c)
		case whose == finishing:
			finish = append(finish, c)
		}
	}
	if err := runHook(w.s.hooks.afterClaim); err != nil {
		crashed = true
		return nil, err
	}
	if len(mine) > 0 && ch.Events != nil {
		// Before the audit entry: a stop after it finds the events written (a repeat past the
		// lease, counting the records again, writes them again: at least once).
		if err := w.s.Outbox.insertEvents(ctx, ch.Events(afters(mine))); err != nil {
			return nil, err
		}
	}
	if len(mine) > 0 {
		entries := ch.Audit(afters(mine))
		for i := range entries {
			entries[i].ID = suffixed(e.id, i)
		}
		e.appending = true
		if err := runHook(w.s.hooks.failAudit); err != nil {
			return nil, err
		}
		if err := w.appendRepeating(ctx, entries); err != nil {
			return nil, err
		}
	}
	if err := runHook(w.s.hooks.afterAudit); err != nil {
		crashed = true
		return nil, err
	}
	for _, c := range append(mine, finish...) {
		if err := e.strip(ctx, c); err != nil {
			return nil, err
		}
	}
	before := make([]tenants.Record, len(mine))
	for i, c := range mine {
		before[i] = c.before
	}
	return before, nil
}

// erasure is one call of Erase.
type erasure struct {
	w       *Writer
	ch      tenants.Change
	id      string
	now     time.Time
	audited map[string]bool // erasure ids whose audit entry exists
	// appending is set once the audit entry may have been written.
	appending bool
}

// whose says which erasure a record counts for.
type whose int

const (
	others    whose = iota // claimed by an erasure still running, or stripped meanwhile
	ours                   // claimed by this erasure: counted here
	finishing              // counted by an erasure that stopped after its audit entry
)

// claim claims c's record for this erasure, or tells whose it is. A record held by another
// erasure that has not counted it yet is waited for (claimWait); still held, errErasing.
func (e *erasure) claim(ctx context.Context, c change) (change, whose, error) {
	tenantID, recordID := c.doc.TenantID, c.doc.ID
	wait := claimWait
	if e.w.s.hooks.claimWait > 0 {
		wait = e.w.s.hooks.claimWait
	}
	deadline := time.Now().Add(wait)
	for attempts := 0; attempts < casAttempts; {
		gen := 0
		last, found, err := e.w.s.claims.latest(ctx, tenantID, recordID)
		if err != nil {
			return c, others, err
		}
		if found {
			done, err := e.isAudited(ctx, last.ErasureID)
			switch {
			case err != nil:
				return c, others, err
			case done:
				return c, finishing, nil
			case e.w.s.now().Sub(last.At) < claimLease && !e.w.gaveUp.has(last.ErasureID):
				// Another erasure holds it and has not counted it: it is running, or stopped
				// within its lease. Answering now would leave the record as it is. (One of this
				// process that failed and is still giving its claims back runs no more: its
				// claims are taken over at once.)
				left := last.At.Add(claimLease).Sub(e.w.s.now())
				if time.Now().After(deadline) {
					return c, others, erasing(left)
				}
				select {
				case <-ctx.Done():
					return c, others, erasing(left)
				case <-time.After(claimPoll):
				}
				delete(e.audited, last.ErasureID)
				if c, err = e.reread(ctx, c); err != nil || !c.changed {
					return c, others, err // stripped meanwhile: nothing left here
				}
				continue
			}
			gen = last.Gen + 1
		}
		attempts++
		won, err := e.w.s.claims.insert(ctx, tenantID, recordID, gen, e.id, e.now)
		if err != nil {
			return c, others, err
		}
		if !won {
			continue // another erasure claimed it first: see whose it is now
		}
		// Read it again: an erasure that finished after this one read it has stripped it (and
		// removed its claims, which is how this claim could be won), and the change is applied
		// to the record as it is now.
		if c, err = e.reread(ctx, c); err != nil || !c.changed {
			return c, others, errors.Join(err, e.w.s.claims.drop(ctx, tenantID, recordID, gen))
		}
		return c, ours, nil
	}
	return c, others, errBusy("erase")
}

// strip replaces the record by its changed version, then removes its claims.
func (e *erasure) strip(ctx context.Context, c change) error {
	tenantID, recordID := c.doc.TenantID, c.doc.ID
	for range casAttempts {
		d, err := toDoc(c.after)
		if err != nil {
			return err
		}
		d.Rev = c.doc.Rev + 1
		col, _ := e.w.s.Records.col(c.doc.Kind)
		res, err := col.ReplaceOne(ctx, atRev(c.doc), d)
		if err != nil {
			return translate("strip record", err)
		}
		if res.MatchedCount == 1 {
			return e.w.s.claims.release(ctx, tenantID, recordID)
		}
		// A revocation or the expiry job changed it since: apply the change to what it is now.
		if c, err = e.reread(ctx, c); err != nil {
			return err
		}
		if !c.changed {
			return e.w.s.claims.release(ctx, tenantID, recordID)
		}
	}
	return errBusy("erase")
}

// reread reads c's record again and applies the change to it; unchanged when the record no
// longer carries the keys (another erasure stripped it).
func (e *erasure) reread(ctx context.Context, c change) (change, error) {
	d, err := e.w.s.Records.getDoc(ctx, c.doc.TenantID, c.doc.Kind, c.doc.ID)
	if errors.Is(err, tenants.ErrNotFound) || (err == nil && !d.reached(e.ch)) {
		return change{}, nil
	}
	if err != nil {
		return change{}, err
	}
	return prepare(d, e.ch)
}

// isAudited reports whether erasure id's audit entry exists, that is, whether it counted
// the records it claimed.
func (e *erasure) isAudited(ctx context.Context, id string) (bool, error) {
	if done, ok := e.audited[id]; ok {
		return done, nil
	}
	done, err := e.w.s.Audit.settled(ctx, e.ch.TenantID, id)
	if err == nil {
		e.audited[id] = done
	}
	return done, err
}

func runHook(hook func() error) error {
	if hook == nil {
		return nil
	}
	return hook()
}

// errBusy answers a change that others' writes to one record kept refusing: contention, which
// a repeat cures (503), not a fault of the service (500).
func errBusy(op string) error {
	return fmt.Errorf("%s: a record was changed by others %d times in a row: %w", op, casAttempts, tenants.ErrUnavailable)
}
