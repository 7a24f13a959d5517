// Package batch groups concurrent requests for one writer: each store's writer hands its
// jobs to a Batcher, whose goroutine writes whatever queued while the previous batch was being
// written. A lone job waits for nobody, and under load one write (one fsync, one round trip)
// serves many jobs.
package batch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// ErrClosed is returned for a job handed to a Batcher that has stopped.
var ErrClosed = errors.New("writer closed")

// Batcher runs write on batches of jobs, one batch at a time, on its own goroutine.
type Batcher[J any] struct {
	max     int
	write   func(jobs []J)
	observe func(size int, took time.Duration)
	work    chan item[J]
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

type item[J any] struct {
	job  J
	done chan struct{}
}

// New starts a Batcher that writes at most max jobs at a time with write; write reports each
// job's outcome through the job itself (a pointer), before it returns. observe, when given,
// is told each batch's size and how long write took (the writer's metrics).
func New[J any](max int, write func(jobs []J), observe ...func(size int, took time.Duration)) *Batcher[J] {
	b := &Batcher[J]{max: max, write: write, work: make(chan item[J], 4*max), stop: make(chan struct{}), stopped: make(chan struct{})}
	if len(observe) > 0 && observe[0] != nil {
		b.observe = observe[0]
	}
	go b.loop()
	return b
}

// Do queues job and returns once the batch holding it is written, or when ctx ends first (the
// job is written anyway: one client giving up does not abort the others' writes).
func (b *Batcher[J]) Do(ctx context.Context, job J) error {
	it := item[J]{job: job, done: make(chan struct{})}
	select {
	case <-b.stop:
		return ErrClosed
	default:
	}
	select {
	case b.work <- it:
	case <-b.stop:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-it.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting jobs, writes those queued and returns.
func (b *Batcher[J]) Close() {
	b.once.Do(func() { close(b.stop) })
	<-b.stopped
}

func (b *Batcher[J]) loop() {
	defer close(b.stopped)
	for {
		select {
		case first := <-b.work:
			b.run(b.collect(first))
		case <-b.stop:
			for {
				select {
				case it := <-b.work:
					b.run(b.collect(it))
				default:
					return
				}
			}
		}
	}
}

// collect takes first and whatever else is queued, up to max.
func (b *Batcher[J]) collect(first item[J]) []item[J] {
	batch := []item[J]{first}
	for len(batch) < b.max {
		select {
		case it := <-b.work:
			batch = append(batch, it)
		default:
			return batch
		}
	}
	return batch
}

func (b *Batcher[J]) run(batch []item[J]) {
	jobs := make([]J, len(batch))
	for i, it := range batch {
		jobs[i] = it.job
	}
	start := time.Now()
	b.write(jobs)
	if b.observe != nil {
		b.observe(len(jobs), time.Since(start))
	}
	for _, it := range batch {
		close(it.done)
	}
}

// Observer adapts the domain's observer to New's hook; nil observes nothing.
func Observer(o tenants.Observer) func(size int, took time.Duration) {
	if o == nil {
		return nil
	}
	return o.Batch
}
