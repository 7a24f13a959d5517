package admin

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Failed sign-ins allowed before backoff: few per account from one client address (guessing
// one password), more per address (offices share one). Failures are never counted per
// account alone, so that a stranger cannot lock a staff member out.
const (
	maxFailuresAccount = 5
	maxFailuresAddr    = 20
	// Past the limit, one more attempt is allowed after backoffBase, doubling with each
	// further failure up to backoffMax: no long lock, and a guesser gets a few tries an hour.
	backoffBase = time.Minute
	backoffMax  = 15 * time.Minute
	// forgetAfter drops a key's failures once it has been quiet this long.
	forgetAfter = 30 * time.Minute
)

// throttle counts sign-in attempts per key in a bounded in-memory LRU. An attempt is counted
// before its password is checked (take), so that however many arrive at once, no more than
// the limit are ever checked; a success gives its attempt back (succeeded). Each instance
// counts its own; an attacker spreading over instances gets n times the tries.
type throttle struct {
	mu  sync.Mutex
	lru *expirable.LRU[string, counter]
	now func() time.Time
}

type counter struct {
	n    int       // attempts counted and not given back
	last time.Time // the latest attempt
}

// limit is a throttle key and the attempts it allows before backoff.
type limit struct {
	key string
	max int
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{lru: expirable.NewLRU[string, counter](100_000, nil, forgetAfter), now: now}
}

// wait is how long after its latest attempt a key at or past its limit must wait.
func (c counter) wait(max int) time.Duration {
	if c.n < max {
		return 0
	}
	d := backoffBase
	for i := max; i < c.n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// take counts an attempt against every limit, all or none: when one of them is at its limit
// and still in backoff, nothing is counted and it answers how long to wait.
func (t *throttle) take(limits ...limit) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for _, l := range limits {
		c, _ := t.lru.Get(l.key)
		if left := c.last.Add(c.wait(l.max)).Sub(now); left > 0 {
			return left, false
		}
	}
	for _, l := range limits {
		c, _ := t.lru.Get(l.key)
		t.lru.Add(l.key, counter{n: c.n + 1, last: now})
	}
	return 0, true
}

// waiting reports how long l is still in backoff, counting nothing.
func (t *throttle) waiting(l limit) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, _ := t.lru.Get(l.key)
	left := c.last.Add(c.wait(l.max)).Sub(t.now())
	return left, left > 0
}

// succeeded gives back a successful attempt: the account's failures from that address are
// forgotten, and the address's count drops by the one attempt.
func (t *throttle) succeeded(account, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lru.Remove(account)
	if c, ok := t.lru.Get(addr); ok && c.n > 0 {
		t.lru.Add(addr, counter{n: c.n - 1, last: c.last})
	}
}
