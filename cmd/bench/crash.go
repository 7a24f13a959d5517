package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/mongo/ferrettest"
)

// benchCrashMongo runs benchCrash on MongoDB's stand-in, which runs in this process on
// loopback and so outlives the server's kill, as a database server would.
func benchCrashMongo(ctx context.Context, bin string, d time.Duration) error {
	dir, err := os.MkdirTemp("", "bench-ferret")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := ferrettest.Start(dir, "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer db.Stop()
	return benchCrash(ctx, bin, d, []string{"MONGODB_URI=" + db.URI(), "MONGODB_DATABASE=crash"}, "MongoDB stand-in",
		func() error { return db.IndexIDs(ctx, "crash") })
}

// benchCrash kills the server (SIGKILL) in the middle of a load of accept-submissions, starts
// it again on the same data and reads back every submission that was acknowledged with a 200:
// none may be missing. It reports how long the restart took until the server was ready.
func benchCrash(ctx context.Context, bin string, d time.Duration, env []string, storeName string, prepare ...func() error) error {
	dir, err := os.MkdirTemp("", "bench-crash")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	_, key, err := provision(bin, dir, env)
	if err != nil {
		return err
	}
	srv, err := startServer(ctx, bin, dir, env...)
	if err != nil {
		return err
	}
	for _, p := range prepare {
		if err := p(); err != nil {
			return err
		}
	}
	var mu sync.Mutex
	var acked []string
	var failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("crash-%d-%d", w, n)
				status, _, _, err := call("POST", srv.url+"/api/v1/forms/accept-submission", key, map[string]any{
					"form_id": "petition", "submission_id": id, "email": id + "@example.org", "consent_to_general_contact_email": true})
				if err == nil && status == 200 {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				} else {
					failed.Add(1)
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(d)
	srv.kill()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	srv, err = startServer(ctx, bin, dir, env...)
	if err != nil {
		return err
	}
	defer srv.stop()
	missing := 0
	statuses := map[string]int{}
	for _, id := range acked {
		status, body, _, err := call("GET", srv.url+"/api/v1/forms/submissions/"+id, key, nil)
		if err != nil || status != 200 {
			missing++
			statuses[fmt.Sprint(status, " ", err, " ", string(body))]++
		}
	}
	for s, n := range statuses {
		fmt.Printf("  read back: %d × %s\n", n, s)
	}
	fmt.Printf("SIGKILL under load (%s): %d submissions acknowledged before the kill, %d refused or cut off, %d missing after the restart; ready again in %.2f s\n",
		storeName, len(acked), failed.Load(), missing, srv.ready.Seconds())
	if missing > 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "server.log")); err == nil {
			fmt.Printf("server log, last part:\n%s\n", b[max(0, len(b)-3000):])
		}
		return fmt.Errorf("%d acknowledged submissions were lost", missing)
	}
	return nil
}
