package api

import (
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// limiter is a token bucket per API key (or webhook credential) on this instance: the
// tenant's rate per second, with a burst of one second's worth.
type limiter struct {
	mu      sync.Mutex
	buckets *expirable.LRU[string, *bucket]
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter() *limiter {
	return &limiter{buckets: expirable.NewLRU[string, *bucket](100000, nil, 10*time.Minute)}
}

// allow takes a token for id; when none is left it returns the whole seconds to wait (≥ 1).
func (l *limiter) allow(id string, rate int, now time.Time) (int, bool) {
	return l.take(id, float64(rate), float64(max(rate, 1)), now)
}

// take is allow for any rate (tokens per second) and burst.
func (l *limiter) take(id string, rate, burst float64, now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets.Get(id)
	if !ok {
		b = &bucket{tokens: burst, last: now}
		l.buckets.Add(id, b)
	}
	// Requests take their time before they take the lock, so a request can arrive with a time
	// before the bucket's last one. It refills nothing and takes nothing back: a negative
	// refill took tokens away from a key that never went over its rate, and a busy machine,
	// where a request waits longest between the two, refused requests within the limit.
	if d := now.Sub(b.last); d > 0 {
		b.tokens = math.Min(burst, b.tokens+d.Seconds()*rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := int(math.Ceil((1 - b.tokens) / rate))
	return max(wait, 1), false
}

// charge takes n more tokens for id after allow admitted a request (n ≤ 0: none), going
// into debt if need be: requests wait until it is paid off. A batch larger than the burst
// is still served, and paid for afterwards.
func (l *limiter) charge(id string, rate, n int, now time.Time) {
	if n <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets.Get(id)
	if !ok {
		b = &bucket{tokens: float64(max(rate, 1)), last: now}
		l.buckets.Add(id, b)
	}
	b.tokens -= float64(n)
}
