package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// benchStore seeds people × 2 records of each of the four kinds on the embedded store, starts
// the real server on that data and times, over HTTP: erasures, unsubscribes and consent reads
// of single persons, unsubscribes and submissions arriving alone, each admin page that reads
// many records, the admin's person search, the audit CSV export, and a restart.
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
	tid, key, k, err := prepareStore(ctx, bin, dir, people, keep)
	if err != nil {
		return err
	}
	people = k.People
	personOffset = 2 * k.Runs

	logFrom := fileSize(filepath.Join(dir, "server.log"))
	_, err = os.Stat(filepath.Join(dir, "consentforms.db.clean"))
	beside := err == nil
	srv, err := startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	fmt.Printf("%-44s %.2f s\n", "start with the data, until ready", srv.ready.Seconds())
	if err := waitStartCheck(filepath.Join(dir, "server.log"), logFrom, beside); err != nil {
		srv.stop()
		return err
	}
	if err := expiringPages(srv.url, key, samples); err != nil {
		srv.stop()
		return err
	}
	if err := personOps(srv.url, key, people, samples); err != nil {
		srv.stop()
		return err
	}
	if err := loneOps(srv.url, key, people, samples); err != nil {
		srv.stop()
		return err
	}
	staff, err := signIn(srv.url)
	if err == nil {
		err = adminPages(staff, string(tenants.KindFormSubmission)+"-1-0", 10)
	}
	if err == nil {
		err = findPerson(staff, people, samples, k.Runs > 0)
	}
	if err == nil {
		err = auditExport(staff)
	}
	if err == nil && k.Runs == 0 {
		err = retentionRun(bin, dir, srv.url, key, tid) // once: it anonymises what falls due
	}
	rss, peak := srv.memory()
	fmt.Printf("server memory: resident %.0f MiB now, peak %.0f MiB\n", rss, peak)
	srv.stop()
	if fi, err := os.Stat(filepath.Join(dir, "consentforms.db")); err == nil {
		fmt.Printf("%-44s %.0f MiB, %.0f bytes per record\n", "database file after a clean stop", float64(fi.Size())/(1<<20), float64(fi.Size())/float64(8*people))
	}
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

// waitStartCheck waits until the server whose log (from offset from on) is at path has
// finished the whole-file check that runs beside a start after a clean shutdown (when the
// store's clean-shutdown marker was there at the start: beside), and says how long it took.
// That check reads the whole file once after a restart and takes a core while it runs (and
// defers erasures' scrubs); the timings that follow are of the steady state.
func waitStartCheck(path string, from int64, beside bool) error {
	if !beside {
		return nil
	}
	start := time.Now()
	for time.Since(start) < 5*time.Minute {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		log := string(b[min(int64(len(b)), from):])
		switch {
		case strings.Contains(log, "check beside the start finished"):
			fmt.Printf("%-44s %.2f s (the timings below come after it)\n", "check beside the start, until done", time.Since(start).Seconds())
			return nil
		case strings.Contains(log, "the server stops"):
			return errors.New("the check beside the start found damage")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the check beside the start did not finish in 5 minutes")
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// prepareStore seeds a fresh store in dir, or opens the kept one (a new API key on it, its
// migrations applied by that first command), and returns its tenant, an API key and what
// the kept store records.
func prepareStore(ctx context.Context, bin, dir string, people int, keep string) (tid, key string, k kept, err error) {
	if keep != "" {
		k, err = readKept(keep)
		if err != nil {
			return "", "", k, err
		}
	}
	if k.Tenant != "" {
		// A kept store is measured again as it is, with other persons than the runs before;
		// the first command on it applies what migrations the binary brings.
		tid, people = k.Tenant, k.People
		k.Runs++
		start := time.Now()
		m, err := cli(bin, dir, nil, "key", "create", "--tenant", tid, "--scopes", "all")
		if err != nil {
			return "", "", k, err
		}
		key = m["key"].(string)
		fmt.Printf("kept store of %d records, run %d; %-20s %.2f s\n", 8*people, k.Runs, "first command (migrations)", time.Since(start).Seconds())
	} else {
		hmacKey, err := writeSecrets(dir)
		if err != nil {
			return "", "", k, err
		}
		if tid, key, err = provision(bin, dir, nil); err != nil {
			return "", "", k, err
		}
		start := time.Now()
		if err := seed(ctx, dir, tid, hmacKey, people, false); err != nil {
			return "", "", k, err
		}
		fmt.Printf("seeded %d records (%d persons × 2 of each of 4 kinds) in %s\n", 8*people, people, time.Since(start).Round(time.Second))
		k = kept{Tenant: tid, People: people}
	}
	if keep != "" {
		if err := writeKept(keep, k); err != nil {
			return "", "", k, err
		}
	}
	return tid, key, k, nil
}

// personOps times, for samples persons spread over the data: a consent read, an unsubscribe
// and an erasure, each of one person.
func personOps(url, key string, people, samples int) error {
	var reads, exports, unsubs, erasures []time.Duration
	for i := range samples {
		p := 1 + personOffset + i*(people/(samples+1))
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

// loneOps times writes that arrive alone, as most do outside a campaign's peak: unsubscribes
// of samples persons (none of those personOps erased) and as many new submissions, each
// loneGap after the one before, when the store has gone quiet (its checkpointer has looked at
// the log since).
func loneOps(url, key string, people, samples int) error {
	var unsubs, submissions []time.Duration
	step := people / (samples + 1)
	for i := range samples {
		p := 1 + personOffset + i*step + step/2
		time.Sleep(loneGap)
		status, body, d, err := call("POST", url+"/api/v1/brevo/unsubscribe", key, map[string]any{"email": email(p)})
		if err != nil || status != 200 {
			return fmt.Errorf("lone unsubscribe: %d %s %v", status, body, err)
		}
		unsubs = append(unsubs, d)
	}
	run := time.Now().UnixNano()
	for i := range samples {
		time.Sleep(loneGap)
		status, body, d, err := call("POST", url+"/api/v1/forms/accept-submission", key, map[string]any{
			"form_id": "petition", "submission_id": fmt.Sprintf("lone-%d-%d", run, i), "email": fmt.Sprintf("lone.%d.%d@example.org", run, i),
			"first_name": "Lone", "consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
			"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_date": "2030-12-31",
			"consent_source": "bench", "consent_ip_address": "192.0.2.10", "consent_timestamp": "2026-11-21T10:00:00Z"})
		if err != nil || status != 200 {
			return fmt.Errorf("lone submission: %d %s %v", status, body, err)
		}
		submissions = append(submissions, d)
	}
	printLatency("unsubscribe arriving alone (6 records)", unsubs)
	printLatency("submission arriving alone", submissions)
	return nil
}

// loneGap is the pause before each of loneOps' writes.
const loneGap = 300 * time.Millisecond

func printLatency(name string, d []time.Duration) {
	slices.Sort(d)
	pct := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	fmt.Printf("%-44s n=%-3d p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms\n", name, len(d), msOf(pct(0.5)), msOf(pct(0.99)), msOf(d[len(d)-1]))
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// kept is what a kept data dir's bench.json says of the store seeded there: its tenant, the
// persons seeded and how many runs measured it since.
type kept struct {
	Tenant string `json:"tenant"`
	People int    `json:"people"`
	Runs   int    `json:"runs"`
}

// personOffset moves the persons a run times past those of the runs before on a kept store
// (which erased them).
var personOffset int

func readKept(dir string) (kept, error) {
	var k kept
	b, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return k, err
	}
	return k, json.Unmarshal(b, &k)
}

func writeKept(dir string, k kept) error {
	b, _ := json.Marshal(k)
	return os.WriteFile(filepath.Join(dir, "bench.json"), b, 0o600)
}
