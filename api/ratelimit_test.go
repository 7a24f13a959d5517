package api

import (
	"testing"
	"time"
)

// TestLimiterTimesOutOfOrder: requests read the time before they take the limiter's lock, so
// on a busy machine one can arrive with a time before the bucket's last. A key within its rate
// is still served: 3 requests a second with a burst of 3, all 3 in the same second, in any
// order of their times.
func TestLimiterTimesOutOfOrder(t *testing.T) {
	l := newLimiter()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for i, now := range []time.Time{t0.Add(400 * time.Millisecond), t0, t0.Add(200 * time.Millisecond)} {
		if wait, ok := l.allow("key:a", 3, now); !ok {
			t.Fatalf("request %d of 3 within one second refused (wait %d s)", i+1, wait)
		}
	}
	if _, ok := l.allow("key:a", 3, t0.Add(450*time.Millisecond)); ok {
		t.Error("a 4th request within the same second was served")
	}
	// After a second the bucket is full again, whatever the order of the times before.
	if _, ok := l.allow("key:a", 3, t0.Add(1500*time.Millisecond)); !ok {
		t.Error("a request a second later refused")
	}
}
