package batch

import (
	"context"
	"sync"
	"testing"
	"time"
)

type job struct {
	n      int
	result int
}

// TestBatches: concurrent jobs are written in batches no larger than max, each job's result
// is there when Do returns, and jobs queued at Close are still written.
func TestBatches(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	release := make(chan struct{})
	b := New(4, func(jobs []*job) {
		<-release
		mu.Lock()
		sizes = append(sizes, len(jobs))
		mu.Unlock()
		for _, j := range jobs {
			j.result = j.n * 2
		}
	})
	var wg sync.WaitGroup
	jobs := make([]*job, 10)
	for i := range jobs {
		jobs[i] = &job{n: i}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.Do(context.Background(), jobs[i]); err != nil {
				t.Error(err)
			}
			if jobs[i].result != 2*i {
				t.Errorf("job %d: result %d when Do returned", i, jobs[i].result)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // all queued behind the first batch
	close(release)
	wg.Wait()
	b.Close()
	total := 0
	for _, s := range sizes {
		if s > 4 {
			t.Errorf("a batch of %d, max 4", s)
		}
		total += s
	}
	if total != 10 || len(sizes) >= 10 {
		t.Errorf("batches %v: want 10 jobs in fewer than 10 writes", sizes)
	}
	if err := b.Do(context.Background(), &job{}); err != ErrClosed {
		t.Errorf("Do after Close = %v, want ErrClosed", err)
	}
}

// TestGivingUp: a job whose context ends is still written; Do answers the context's error.
func TestGivingUp(t *testing.T) {
	written := make(chan int, 1)
	release := make(chan struct{})
	b := New(8, func(jobs []*job) {
		<-release
		written <- len(jobs)
	})
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := b.Do(ctx, &job{}); err != context.Canceled {
		t.Errorf("Do = %v, want context.Canceled", err)
	}
	close(release)
	if n := <-written; n != 1 {
		t.Errorf("written %d jobs", n)
	}
}

// TestObserve: the observer hears of every batch with its size, and the sizes add up to the
// jobs written.
func TestObserve(t *testing.T) {
	var mu sync.Mutex
	total, batches := 0, 0
	b := New(4, func(jobs []*job) {}, func(size int, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		total += size
		batches++
		if took < 0 {
			t.Errorf("took %v", took)
		}
	})
	for i := range 5 {
		if err := b.Do(context.Background(), &job{n: i}); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	if total != 5 || batches != 5 {
		t.Errorf("observed %d jobs in %d batches, want 5 in 5 (one at a time)", total, batches)
	}
}
