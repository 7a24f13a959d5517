package api

import (
	"testing"
	"time"
)

// TestTouchBounded: a credential used again within touchEvery writes nothing and allocates
// nothing (the key and webhook token paths call touch on every request).
func TestTouchBounded(t *testing.T) {
	s := &server{touched: newTouches()}
	now := time.Now()
	for _, u := range []usedCredential{{kindKey, "0123456789abcdef"}, {kindToken, "0123456789abcdef"}} {
		s.touched.last[u] = now // as if written just now: a write now would reach the nil stores and panic
		if n := testing.AllocsPerRun(100, func() { s.touch(u, now.Add(touchEvery-time.Second)) }); n != 0 {
			t.Errorf("touch(%v) within a minute allocates %.0f times", u, n)
		}
	}
}
