package admin

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Failed sign-ins allowed per window: few per account (guessing one password), more per IP
// address (offices share one).
const (
	throttleWindow     = 15 * time.Minute
	maxFailuresAccount = 5
	maxFailuresIP      = 20
)

// throttle counts failed sign-ins per key in fixed windows, in a bounded in-memory LRU.
// Each instance counts its own; an attacker spreading over instances gets n times the tries.
type throttle struct {
	mu  sync.Mutex
	lru *expirable.LRU[string, window]
	now func() time.Time
}

type window struct {
	start time.Time
	n     int
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{lru: expirable.NewLRU[string, window](100_000, nil, throttleWindow), now: now}
}

// blocked reports whether key has limit failures in its current window, and when it ends.
func (t *throttle) blocked(key string, limit int) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.lru.Get(key)
	if !ok {
		return false, 0
	}
	left := throttleWindow - t.now().Sub(w.start)
	if left <= 0 {
		t.lru.Remove(key)
		return false, 0
	}
	return w.n >= limit, left
}

// fail counts a failure for each key.
func (t *throttle) fail(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for _, k := range keys {
		w, ok := t.lru.Get(k)
		if !ok || now.Sub(w.start) >= throttleWindow {
			w = window{start: now}
		}
		w.n++
		t.lru.Add(k, w)
	}
}

// reset forgets key's failures (a successful sign-in of the account).
func (t *throttle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lru.Remove(key)
}
