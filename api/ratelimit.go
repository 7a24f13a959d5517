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
	l.mu.Lock()
	defer l.mu.Unlock()
	burst := float64(max(rate, 1))
	b, ok := l.buckets.Get(id)
	if !ok {
		b = &bucket{tokens: burst, last: now}
		l.buckets.Add(id, b)
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*float64(rate))
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := int(math.Ceil((1 - b.tokens) / float64(rate)))
	return max(wait, 1), false
}
