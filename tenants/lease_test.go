package tenants

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

type fakeLeases struct {
	held  atomic.Bool
	err   atomic.Bool
	calls atomic.Int64
}

func (f *fakeLeases) Hold(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	f.calls.Add(1)
	if f.err.Load() {
		return true, errors.New("unreachable")
	}
	return f.held.Load(), nil
}

// TestLease: without a repository a lease is always held; with one, it is held while the
// repository grants it, renewed in the background, and lost when a renewal fails.
func TestLease(t *testing.T) {
	if !NewLease(nil, "expiry", "me", time.Second, nil).Held() {
		t.Error("a lease without a repository is not held")
	}
	f := &fakeLeases{}
	f.held.Store(true)
	var failures atomic.Int64
	l := NewLease(f, "expiry", "me", 30*time.Millisecond, func(error) { failures.Add(1) })
	if l.Held() {
		t.Error("held before it was taken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	waitFor(t, l.Held)
	f.err.Store(true)
	waitFor(t, func() bool { return !l.Held() && failures.Load() > 0 })
	f.err.Store(false)
	waitFor(t, l.Held)
	f.held.Store(false)
	waitFor(t, func() bool { return !l.Held() })
	cancel()
	<-done
	if f.calls.Load() < 4 {
		t.Errorf("%d renewals", f.calls.Load())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 2 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
