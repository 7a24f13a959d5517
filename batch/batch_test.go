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

// recordAndDouble returns a write that appends each batch's size to sizes (under mu) and
// answers each job with twice its n.
func recordAndDouble(mu *sync.Mutex, sizes *[]int) func(jobs []*job) {
	return func(jobs []*job) {
		mu.Lock()
		*sizes = append(*sizes, len(jobs))
		mu.Unlock()
		for _, j := range jobs {
			j.result = j.n * 2
		}
	}
}

// TestBatches: concurrent jobs are written in batches no larger than max, each job's result
// is there when Do returns, and jobs queued at Close are still written.
func TestBatches(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	release := make(chan struct{})
	write := recordAndDouble(&mu, &sizes)
	b := New(4, func(jobs []*job) {
		<-release
		write(jobs)
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

// TestGivingUp: a job whose context ends while it waits in the queue is withdrawn, never
// written, and Do answers the context's error; one whose batch is being written when its
// context ends is waited for and answered as written, so that an error never hides a write.
func TestGivingUp(t *testing.T) {
	var mu sync.Mutex
	var written []int
	inFirst := make(chan struct{})
	release := make(chan struct{})
	b := New(1, func(jobs []*job) {
		if jobs[0].n == 1 {
			close(inFirst)
			<-release
		}
		mu.Lock()
		written = append(written, jobs[0].n)
		mu.Unlock()
	})
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { first <- b.Do(ctx, &job{n: 1}) }()
	<-inFirst
	second := make(chan error, 1)
	go func() { second <- b.Do(ctx, &job{n: 2}) }() // queued behind the first
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-second; err != context.Canceled {
		t.Errorf("the queued job: Do = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the job being written: Do = %v, want nil (it was written)", err)
	}
	if err := b.Do(context.Background(), &job{n: 3}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(written) != 2 || written[0] != 1 || written[1] != 3 {
		t.Errorf("written %v, want [1 3]: the withdrawn job is not written", written)
	}
}

// TestDoRacingClose: a job handed over while Close runs is either written or refused with
// ErrClosed, never left in a queue nobody drains (its caller would wait until its context
// ends).
func TestDoRacingClose(t *testing.T) {
	for range 100 {
		b := New(4, func(jobs []*job) {
			for _, j := range jobs {
				j.result = 1
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for {
					j := &job{}
					switch err := b.Do(ctx, j); {
					case err == ErrClosed:
						return
					case err != nil:
						t.Errorf("Do = %v: the job was queued after Close drained the queue", err)
						return
					case j.result != 1:
						t.Error("Do answered nil for a job not written")
						return
					}
				}
			})
		}
		time.Sleep(time.Millisecond)
		b.Close()
		wg.Wait()
		cancel()
		if t.Failed() {
			return
		}
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

// TestPipelined: a pipelined batch's callers are answered only at its done, later batches are
// written meanwhile, and while one awaits done a batch below the minimum is not written until
// enough jobs queued; a lone job, with nothing awaiting done, is written at once.
func TestPipelined(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	var waiting []func()
	idle := make(chan struct{})
	close(idle)
	busy := func() <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		return idle
	}
	b := NewPipelined(64, 8, func(jobs []*job, done func()) {
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, len(jobs))
		for _, j := range jobs {
			j.result = j.n * 2
		}
		waiting = append(waiting, done)
		if len(waiting) == 1 {
			idle = make(chan struct{})
		}
	}, busy)
	defer b.Close()
	finish := func() { // the disk: answers every batch written so far
		mu.Lock()
		ws := waiting
		waiting = nil
		close(idle)
		mu.Unlock()
		for _, d := range ws {
			d()
		}
	}
	answered := make(chan int, 100)
	do := func(n int) {
		j := &job{n: n}
		if err := b.Do(context.Background(), j); err != nil || j.result != 2*n {
			t.Errorf("job %d: %v, result %d", n, err, j.result)
		}
		answered <- n
	}
	go do(0)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(sizes)
		mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-answered:
		t.Fatal("answered before its batch was done")
	case <-time.After(20 * time.Millisecond):
	}
	// While the first awaits done, 5 jobs (below the minimum of 8) wait; 3 more make 8.
	for i := 1; i <= 5; i++ {
		go do(i)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	if len(sizes) != 1 {
		t.Errorf("batches %v: a batch below the minimum was written while one awaited done", sizes)
	}
	mu.Unlock()
	for i := 6; i <= 8; i++ {
		go do(i)
	}
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(sizes)
		mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	finish()
	for range 9 {
		select {
		case <-answered:
		case <-time.After(5 * time.Second):
			t.Fatal("a job was not answered after done")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) != 2 || sizes[0] != 1 || sizes[1] != 8 {
		t.Errorf("batches %v, want [1 8]", sizes)
	}
}

// TestLingering: a lingering batch below its minimum waits for more jobs and is written as
// soon as it has them, never a job at a time; one still short of it is written when the
// Batcher stops, not left to its linger.
func TestLingering(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	b := NewLingering(100, 3, time.Hour, recordAndDouble(&mu, &sizes))
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := &job{n: i}
			if err := b.Do(context.Background(), j); err != nil || j.result != 2*i {
				t.Errorf("job %d: %v, result %d", i, err, j.result)
			}
		}()
		time.Sleep(10 * time.Millisecond) // one at a time
	}
	wg.Wait()
	lone := make(chan error, 1)
	go func() { lone <- b.Do(context.Background(), &job{n: 9}) }()
	time.Sleep(50 * time.Millisecond) // queued, lingering
	b.Close()
	if err := <-lone; err != nil {
		t.Errorf("the lone job: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) != 2 || sizes[0] != 3 || sizes[1] != 1 {
		t.Errorf("batches %v, want [3 1]", sizes)
	}
}
