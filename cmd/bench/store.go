package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// benchStore seeds people × 2 records of each of the four kinds on the embedded store, starts
// the real server on that data and times, over HTTP: erasures, unsubscribes and consent reads
// of single persons, each admin page that reads many records, the admin's person search, the
// audit CSV export, and a restart.
func benchStore(ctx context.Context, bin string, people, samples int, keep string) error {
	dir, err := os.MkdirTemp("", "bench-store")
	if err != nil {
		return err
	}
	if keep != "" {
		os.Remove(dir)
		dir = keep
	} else {
		defer os.RemoveAll(dir)
	}
	hmacKey, err := writeSecrets(dir)
	if err != nil {
		return err
	}
	tid, key, err := provision(bin, dir, nil)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := seed(ctx, dir, tid, hmacKey, people, false); err != nil {
		return err
	}
	fmt.Printf("seeded %d records (%d persons × 2 of each of 4 kinds) in %s\n", 8*people, people, time.Since(start).Round(time.Second))

	srv, err := startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	fmt.Printf("%-44s %.2f s\n", "start with the data, until ready", srv.ready.Seconds())
	if err := expiringPages(srv.url, key, samples); err != nil {
		srv.stop()
		return err
	}
	if err := personOps(srv.url, key, people, samples); err != nil {
		srv.stop()
		return err
	}
	staff, err := signIn(srv.url)
	if err == nil {
		err = adminPages(staff, string(tenants.KindFormSubmission)+"-1-0", 10)
	}
	if err == nil {
		err = findPerson(staff, people, samples)
	}
	if err == nil {
		err = auditExport(staff)
	}
	if err == nil {
		err = retentionRun(bin, dir, srv.url, key, tid)
	}
	rss, peak := srv.memory()
	fmt.Printf("server memory: resident %.0f MiB now, peak %.0f MiB\n", rss, peak)
	srv.stop()
	if err != nil {
		return err
	}
	srv, err = startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Printf("%-44s %.2f s\n", "restart after a clean stop, until ready", srv.ready.Seconds())
	return nil
}

// personOps times, for samples persons spread over the data: a consent read, an unsubscribe
// and an erasure, each of one person.
func personOps(url, key string, people, samples int) error {
	var reads, exports, unsubs, erasures []time.Duration
	for i := range samples {
		p := 1 + i*(people/(samples+1))
		for _, op := range []struct {
			method, path string
			body         any
			into         *[]time.Duration
		}{
			{"GET", "/api/v1/consents?email=" + email(p), nil, &reads},
			{"POST", "/api/v1/gdpr/export", map[string]any{"email": email(p)}, &exports},
			{"POST", "/api/v1/brevo/unsubscribe", map[string]any{"email": email(p)}, &unsubs},
			{"POST", "/api/v1/gdpr/search-and-anonymise", map[string]any{"email": email(p)}, &erasures},
		} {
			status, body, d, err := call(op.method, url+op.path, key, op.body)
			if err != nil || status != 200 {
				return fmt.Errorf("%s %s: %d %s %v", op.method, op.path, status, body, err)
			}
			*op.into = append(*op.into, d)
		}
	}
	printLatency("consent read of one person (2 submissions)", reads)
	printLatency("export of one person (8 records)", exports)
	printLatency("unsubscribe of one person (6 records)", unsubs)
	printLatency("erasure of one person (8 records)", erasures)
	return nil
}

func printLatency(name string, d []time.Duration) {
	slices.Sort(d)
	pct := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	fmt.Printf("%-44s n=%-3d p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms\n", name, len(d), msOf(pct(0.5)), msOf(pct(0.99)), msOf(d[len(d)-1]))
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
