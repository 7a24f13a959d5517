// Package batch groups concurrent requests for one writer: each store's writer hands its
// jobs to a Batcher, whose goroutine writes whatever queued while the previous batch was being
// written. A lone job waits for nobody, and under load one write (one fsync, one round trip)
// serves many jobs.
package batch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// ErrClosed is returned for a job handed to a Batcher that has stopped.
var ErrClosed = errors.New("writer closed")

// Batcher runs write on batches of jobs, one batch at a time, on its own goroutine.
type Batcher[J any] struct {
	max   int
	write func(jobs []J)
	// With NewPipelined: writeAsync and its lower bound (see there).
	writeAsync func(jobs []J, done func())
	min        int
	busy       func() <-chan struct{}
	// With NewLingering: how long a batch below min waits for more jobs.
	linger  time.Duration
	observe func(size int, took time.Duration)
	work    chan item[J]
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
	// mu orders Do's queueing before Close: Close takes it exclusively to set closed, so no job
	// enters the queue after Close began draining it (such a job would never be written).
	mu     sync.RWMutex
	closed bool
}

// An item is queued, then taken by a batch or withdrawn by its caller, never both.
const (
	queued int32 = iota
	taken
	withdrawn
)

type item[J any] struct {
	job   J
	done  chan struct{}
	state *atomic.Int32
}

// New starts a Batcher that writes at most max jobs at a time with write; write reports each
// job's outcome through the job itself (a pointer), before it returns. observe, when given,
// is told each batch's size and how long write took (the writer's metrics).
// NewPipelined starts a Batcher whose write returns before its batch is final: write stores
// the batch and calls done once the outcome is final (durable), possibly on another goroutine
// and after later batches were written; only then are the batch's callers answered, so the
// next batch is written while one waits for the disk. busy returns a channel that is closed
// while no batch awaits done. A batch smaller than min is written only once nothing awaits
// done (or the Batcher stops): while the disk works, requests gather for the next batch
// instead of being written a few at a time, so batches do not shrink and a lone request still
// waits for nobody but the disk. observe hears each batch's size and the time until done.
func NewPipelined[J any](max, min int, write func(jobs []J, done func()), busy func() <-chan struct{},
	observe ...func(size int, took time.Duration)) *Batcher[J] {
	b := &Batcher[J]{max: max, min: min, writeAsync: write, busy: busy, work: make(chan item[J], 4*max),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	if len(observe) > 0 && observe[0] != nil {
		b.observe = observe[0]
	}
	go b.loop()
	return b
}

func New[J any](max int, write func(jobs []J), observe ...func(size int, took time.Duration)) *Batcher[J] {
	b := &Batcher[J]{max: max, write: write, work: make(chan item[J], 4*max), stop: make(chan struct{}), stopped: make(chan struct{})}
	if len(observe) > 0 && observe[0] != nil {
		b.observe = observe[0]
	}
	go b.loop()
	return b
}

// NewLingering starts a Batcher like New whose batch, when it holds fewer than min jobs, waits
// up to linger for more before it is written (not longer once the Batcher stops): for jobs
// that arrive one at a time and need not be written at once, so that one write serves many
// of them.
func NewLingering[J any](max, min int, linger time.Duration, write func(jobs []J)) *Batcher[J] {
	b := &Batcher[J]{max: max, min: min, linger: linger, write: write, work: make(chan item[J], 4*max),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go b.loop()
	return b
}

// Do queues job and returns once the batch holding it is written. When ctx ends first, a job
// still queued is withdrawn (never written) and Do answers ctx's error; a job whose batch is
// being written is waited for (the write is bounded by the writer), so that an error answered
// always means not written and a job written is always answered as written.
func (b *Batcher[J]) Do(ctx context.Context, job J) error {
	it := item[J]{job: job, done: make(chan struct{}), state: new(atomic.Int32)}
	if err := b.enqueue(ctx, it); err != nil {
		return err
	}
	select {
	case <-it.done:
		return nil
	case <-ctx.Done():
		if it.state.CompareAndSwap(queued, withdrawn) {
			return ctx.Err()
		}
		<-it.done
		return nil
	}
}

func (b *Batcher[J]) enqueue(ctx context.Context, it item[J]) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	select {
	case b.work <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting jobs, writes those queued and returns.
func (b *Batcher[J]) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
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
			return b.gather(batch)
		}
	}
	return batch
}

// gather adds to a batch below the minimum while an earlier batch still awaits the disk
// (NewPipelined), or for up to the linger (NewLingering).
func (b *Batcher[J]) gather(batch []item[J]) []item[J] {
	var idle <-chan struct{}
	var lingered <-chan time.Time
	switch {
	case b.busy != nil:
		idle = b.busy()
	case b.linger > 0:
		t := time.NewTimer(b.linger)
		defer t.Stop()
		lingered = t.C
	default:
		return batch
	}
	for len(batch) < b.min {
		select {
		case it := <-b.work:
			batch = append(batch, it)
		case <-idle:
			return batch
		case <-lingered:
			return batch
		case <-b.stop:
			return batch
		}
	}
	return batch
}

func (b *Batcher[J]) run(batch []item[J]) {
	jobs := make([]J, 0, len(batch))
	for _, it := range batch {
		if it.state.CompareAndSwap(queued, taken) {
			jobs = append(jobs, it.job)
		}
	}
	if len(jobs) == 0 {
		return
	}
	start := time.Now()
	finish := func() {
		if b.observe != nil {
			b.observe(len(jobs), time.Since(start))
		}
		for _, it := range batch {
			close(it.done)
		}
	}
	if b.writeAsync != nil {
		b.writeAsync(jobs, finish)
		return
	}
	b.write(jobs)
	finish()
}

// Observer adapts the domain's observer to New's hook; nil observes nothing.
func Observer(o tenants.Observer) func(size int, took time.Duration) {
	if o == nil {
		return nil
	}
	return o.Batch
}
