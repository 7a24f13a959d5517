package jobs

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestGroupStopsEveryJob: Stop returns only after every job has returned, and a job that
// fails goes on.
func TestGroupStopsEveryJob(t *testing.T) {
	var runs, failures, returned atomic.Int32
	tick := Every("tick", time.Millisecond, true, func(context.Context) error {
		runs.Add(1)
		return errors.New("boom")
	}, func(string, error) { failures.Add(1) })
	slow := Job{Name: "slow", Run: func(ctx context.Context) {
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		returned.Add(1)
	}}
	g := Start(context.Background(), tick, slow)
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	g.Stop()
	g.Stop()
	if returned.Load() != 1 || runs.Load() < 3 || failures.Load() < 2 {
		t.Fatalf("returned %d, runs %d, failures %d", returned.Load(), runs.Load(), failures.Load())
	}
}

// TestEveryWaitsFirstUnlessNow: a job started without now runs only after its interval.
func TestEveryWaitsFirstUnlessNow(t *testing.T) {
	var runs atomic.Int32
	j := Every("later", time.Hour, false, func(context.Context) error { runs.Add(1); return nil }, nil)
	g := Start(context.Background(), j)
	time.Sleep(5 * time.Millisecond)
	g.Stop()
	if runs.Load() != 0 {
		t.Fatalf("ran %d times before its interval", runs.Load())
	}
}

// TestFlushingFlushesOnStop: a flushing job writes once more when the group stops, so that
// nothing gathered in memory is lost to a stop.
func TestFlushingFlushesOnStop(t *testing.T) {
	var flushes atomic.Int32
	j := Flushing("flush", time.Hour, func(ctx context.Context) error {
		if ctx.Err() != nil {
			t.Error("the last flush ran with an ended context")
		}
		flushes.Add(1)
		return nil
	}, nil)
	g := Start(context.Background(), j)
	g.Stop()
	if flushes.Load() != 1 {
		t.Fatalf("flushed %d times, want once at the stop", flushes.Load())
	}
}
