// Package jobs runs the server's background work (consent expiry, retention, bulk erasure,
// the webhook diagnostics flush, the daily audit chain verification, outgoing webhook
// deliveries) as one group: started together, stopped together, and stopped only once every
// job has returned, so that nothing writes to a store being closed.
package jobs

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Job is one piece of background work; Run returns when ctx ends.
type Job struct {
	Name string
	Run  func(ctx context.Context)
}

// Every is a job that calls do every interval until ctx ends, the first time at once when
// now is set. A failure is handed to failed, unless the job is stopping, and the job goes on.
func Every(name string, interval time.Duration, now bool, do func(ctx context.Context) error, failed func(name string, err error)) Job {
	return Job{Name: name, Run: func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for first := now; ; first = false {
			if !first {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
			if err := do(ctx); err != nil && ctx.Err() == nil {
				failed(name, err)
			}
		}
	}}
}

// Group is a set of jobs started together.
type Group struct {
	cancel context.CancelFunc
	g      *errgroup.Group
	once   sync.Once
}

// Start runs every job until ctx ends or Stop is called.
func Start(ctx context.Context, jobs ...Job) *Group {
	ctx, cancel := context.WithCancel(ctx)
	g, ctx := errgroup.WithContext(ctx)
	for _, j := range jobs {
		g.Go(func() error { j.Run(ctx); return nil })
	}
	return &Group{cancel: cancel, g: g}
}

// Stop ends every job and returns once all have returned; calling it again waits no more.
func (g *Group) Stop() {
	g.once.Do(func() {
		g.cancel()
		_ = g.g.Wait()
	})
}

// Flushing is a job that calls flush every interval until ctx ends, and once more then (ctx's
// values without its end), so that what gathered in memory is written before the stop. A
// failure is handed to failed and the job goes on.
func Flushing(name string, interval time.Duration, flush func(ctx context.Context) error, failed func(name string, err error)) Job {
	every := Every(name, interval, false, flush, failed)
	return Job{Name: name, Run: func(ctx context.Context) {
		every.Run(ctx)
		if err := flush(context.WithoutCancel(ctx)); err != nil {
			failed(name, err)
		}
	}}
}

// DiagnosticsFlushEvery is how often the inbound webhook diagnostics gathered in memory
// (ops.WebhookDiagnostics) are written to the store.
const DiagnosticsFlushEvery = 5 * time.Second
