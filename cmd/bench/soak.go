package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/mongo/ferrettest"
)

// benchSoak runs the real server for d under a steady mixed load — submissions (a share of
// them to a double opt-in form, so the service mails a confirmation through a local SMTP sink),
// reads of a submission, receipts, consent reads, unsubscribes and erasures, with an outgoing
// webhook endpoint subscribed to every consent event — and prints every minute the server's
// resident memory, goroutines, open files and the database's size on disk. Growth after the
// warm-up (the first sixth of the run) is a leak: the run fails when memory, goroutines or
// open files end well above where the warm-up left them.
//
// On the MongoDB stand-in, run it with one worker: FerretDB's SQLite backend stalls under a
// few concurrent clients on a small machine (its statements pile up until its pool is spent),
// which measures the stand-in, not the service. mongoURI runs it against a real MongoDB.
func benchSoak(ctx context.Context, bin, store, mongoURI string, d time.Duration, rate, workers int) error {
	dir, err := os.MkdirTemp("", "bench-soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := []string{"CONSENTFORMS_WEBHOOK_ALLOW_INSECURE=1"}
	dbDir := dir
	switch {
	case store == "mongo" && mongoURI != "":
		env = append(env, "MONGODB_URI="+mongoURI, "MONGODB_DATABASE=soak"+strconv.FormatInt(time.Now().Unix(), 10))
		dbDir = ""
	case store == "mongo":
		dbDir = filepath.Join(dir, "ferret")
		db, err := ferrettest.Start(dbDir, "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer db.Stop()
		env = append(env, "MONGODB_URI="+db.URI(), "MONGODB_DATABASE=soak")
	}
	var hooks, mails atomic.Int64
	hook, stopHook, err := webhookSink(&hooks, new(atomic.Int64))
	if err != nil {
		return err
	}
	defer stopHook()
	smtpAddr, stopSMTP, err := smtpSink(&mails)
	if err != nil {
		return err
	}
	defer stopSMTP()
	tn, key, err := provision(bin, dir, env)
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(smtpAddr)
	pwFile := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pwFile, []byte("soak-password"), 0o600); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"webhook", "create", "--tenant", tn, "--url", hook, "--events", "consent.granted,consent.revoked,consent.confirmation_requested,record.anonymised"},
		{"form", "create", "--tenant", tn, "--form-id", "doi"},
		{"form", "update", "--tenant", tn, "--form-id", "doi", "--double-opt-in", "email"},
		{"tenant", "set-smtp", "--tenant", tn, "--host", host, "--port", port, "--tls", "none", "--user", "soak", "--password-file", pwFile, "--from", "Bench <bench@example.org>"},
	} {
		if _, err := cli(bin, dir, env, args...); err != nil {
			return err
		}
	}
	srv, err := startServer(ctx, bin, dir, env...)
	if err != nil {
		return err
	}
	defer srv.stop()
	l := &soakLoad{url: srv.url, key: key, statuses: map[string]int{}}
	stop := l.start(ctx, rate, workers)
	samples := soakSample(ctx, srv, dbDir, d, l)
	stop()
	fmt.Printf("soak on %s: %d operations (%s), %d webhook deliveries, %d mails received\n",
		map[string]string{"sqlite": "SQLite", "mongo": "MongoDB stand-in (FerretDB)"}[store], l.ops.Load(), l.summary(), hooks.Load(), mails.Load())
	return soakVerdict(samples)
}

// soakLoad is the mixed load: people submit, and the earlier ones are read, unsubscribed
// and erased.
type soakLoad struct {
	url, key string
	people   atomic.Int64
	ops      atomic.Int64
	mu       sync.Mutex
	statuses map[string]int
}

// start runs the load at rate operations a second until the returned stop is called.
func (l *soakLoad) start(ctx context.Context, rate, workers int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	workers = max(workers, 1)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second * time.Duration(workers) / time.Duration(max(rate, 1)))
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					l.one()
				}
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// one sends one operation of the mix.
func (l *soakLoad) one() {
	n := l.people.Load()
	p := int64(1)
	if n > 0 {
		p = 1 + rand.Int64N(n)
	}
	addr := func(p int64) string { return "soak" + strconv.FormatInt(p, 10) + "@example.org" }
	var method, path, what string
	var body any
	switch r := rand.IntN(100); {
	case r < 50 || n < 50:
		p = l.people.Add(1)
		form := "petition"
		if p%5 == 0 {
			form = "doi"
		}
		method, path, what = "POST", "/api/v1/forms/accept-submission", "submit"
		body = map[string]any{"form_id": form, "submission_id": "s" + strconv.FormatInt(p, 10), "email": addr(p),
			"first_name": "Soak", "consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "1y"}
	case r < 65:
		method, path, what = "GET", "/api/v1/forms/submissions/s"+strconv.FormatInt(p, 10), "read"
	case r < 75:
		method, path, what = "GET", "/api/v1/forms/submissions/s"+strconv.FormatInt(p, 10)+"/receipt", "receipt"
	case r < 85:
		method, path, what = "GET", "/api/v1/consents?email="+addr(p), "consents"
	case r < 95:
		method, path, what, body = "POST", "/api/v1/brevo/unsubscribe", "unsubscribe", map[string]any{"email": addr(p)}
	default:
		method, path, what, body = "POST", "/api/v1/gdpr/search-and-anonymise", "erase", map[string]any{"email": addr(p)}
	}
	status, err := l.send(method, path, body)
	l.ops.Add(1)
	k := what + " " + strconv.Itoa(status)
	if err != nil {
		k = what + " transport error"
	}
	l.mu.Lock()
	l.statuses[k]++
	l.mu.Unlock()
}

// send sends one request with the soak's key and a minute's timeout: a server that stops
// answering shows as transport errors and a stalled count, not as a soak that hangs.
func (l *soakLoad) send(method, path string, body any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, l.url+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := soakClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

var soakClient = &http.Client{Timeout: time.Minute}

// summary counts the answers by operation and status.
func (l *soakLoad) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for k, n := range l.statuses {
		parts = append(parts, fmt.Sprintf("%s × %d", k, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// soakPoint is one minute's reading of the server.
type soakPoint struct {
	at                time.Duration
	rss               float64
	goroutines, files int
	dbMiB             float64
	ops, people       int64
}

// soakSample reads the server every minute (every sixth of d when that is shorter) for d.
func soakSample(ctx context.Context, srv *server, dbDir string, d time.Duration, l *soakLoad) []soakPoint {
	every := min(time.Minute, d/6)
	start := time.Now()
	var out []soakPoint
	fmt.Printf("%8s %9s %11s %11s %9s %10s %8s\n", "minute", "RSS MiB", "goroutines", "open files", "DB MiB", "operations", "people")
	for t := time.NewTicker(every); ; {
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
		}
		rss, _ := srv.memory()
		pt := soakPoint{at: time.Since(start), rss: rss, goroutines: goroutines(srv.url), files: openFiles(srv.cmd.Process.Pid),
			dbMiB: dirMiB(dbDir), ops: l.ops.Load(), people: l.people.Load()}
		out = append(out, pt)
		fmt.Printf("%8.1f %9.1f %11d %11d %9.1f %10d %8d\n", pt.at.Minutes(), pt.rss, pt.goroutines, pt.files, pt.dbMiB, pt.ops, pt.people)
		if pt.at >= d {
			t.Stop()
			return out
		}
	}
}

// soakVerdict compares the end of the run with the warm-up (its first sixth). Goroutines and
// open files move with the requests and deliveries in flight at the moment of a reading, so a
// leak is a floor that rises: the least of the last third above the most of the warm-up. RSS is
// judged by the median of the last third against the end of the warm-up.
func soakVerdict(points []soakPoint) error {
	if len(points) < 3 {
		return fmt.Errorf("the soak took %d readings, too few to judge", len(points))
	}
	warmN := max(1, len(points)/6)
	warmUp, late := points[:warmN], points[len(points)*2/3:]
	warm := warmUp[len(warmUp)-1]
	warmGor, warmFiles := 0, 0
	for _, p := range warmUp {
		warmGor, warmFiles = max(warmGor, p.goroutines), max(warmFiles, p.files)
	}
	lateGor, lateFiles := late[0].goroutines, late[0].files
	var rssLate []float64
	for _, p := range late {
		lateGor, lateFiles = min(lateGor, p.goroutines), min(lateFiles, p.files)
		rssLate = append(rssLate, p.rss)
	}
	slices.Sort(rssLate)
	rss := rssLate[len(rssLate)/2]
	last := points[len(points)-1]
	perPerson := func(p soakPoint) float64 { return p.dbMiB * 1024 / float64(max(p.people, 1)) }
	fmt.Printf("warm-up (to minute %.0f): RSS %.1f MiB at its end, at most %d goroutines and %d open files; last third: RSS median %.1f MiB (%+.0f%%), at least %d goroutines and %d open files; database %.2f KiB per person at the warm-up, %.2f at the end\n",
		warm.at.Minutes(), warm.rss, warmGor, warmFiles, rss, 100*(rss-warm.rss)/warm.rss, lateGor, lateFiles, perPerson(warm), perPerson(last))
	var grew []string
	if rss > warm.rss*1.3+16 {
		grew = append(grew, "memory grew after the warm-up")
	}
	if lateGor > warmGor+10 {
		grew = append(grew, "goroutines grew after the warm-up")
	}
	if lateFiles > warmFiles+10 {
		grew = append(grew, "open files grew after the warm-up")
	}
	for i := 1; i < len(points); i++ {
		if points[i].ops == points[i-1].ops {
			grew = append(grew, fmt.Sprintf("no operation answered in minute %.0f (the load stalled)", points[i].at.Minutes()))
			break
		}
	}
	if len(grew) > 0 {
		return fmt.Errorf("not steady: %s", strings.Join(grew, "; "))
	}
	fmt.Println("no growth beyond the warm-up")
	return nil
}

// goroutines reads go_goroutines from the server's /metrics (loopback only); -1 when unread.
func goroutines(url string) int {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	return -1
}

// openFiles counts the process's open file descriptors.
func openFiles(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// dirMiB is the size of the files under dir.
func dirMiB(dir string) float64 {
	var n int64
	if dir == "" {
		return 0 // a real MongoDB's size is not on this machine's disk
	}
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// smtpSink is a minimal SMTP server on loopback that accepts every message and counts it:
// the tenant's mail server during the soak.
func smtpSink(received *atomic.Int64) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go smtpSession(c, received)
		}
	}()
	return ln.Addr().String(), func() { _ = ln.Close() }, nil
}

// smtpSession answers one client: every command is accepted, DATA is read to its end.
func smtpSession(c net.Conn, received *atomic.Int64) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReader(c)
	say := func(s string) bool { _, err := c.Write([]byte(s + "\r\n")); return err == nil }
	if !say("220 soak ESMTP") {
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
		case strings.HasPrefix(cmd, "EHLO"):
			say("250-soak\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n250 SMTPUTF8")
		case cmd == "AUTH PLAIN" || cmd == "AUTH LOGIN":
			// No initial response: one continuation per part the mechanism sends.
			for range map[bool]int{true: 1, false: 2}[cmd == "AUTH PLAIN"] {
				if !say("334 ") {
					return
				}
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
			}
			say("235 ok")
		case strings.HasPrefix(cmd, "AUTH"):
			say("235 ok")
		case strings.HasPrefix(cmd, "DATA"):
			say("354 go on")
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
			}
			received.Add(1)
			say("250 queued")
		case strings.HasPrefix(cmd, "QUIT"):
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

// setSinkSMTP gives the tenant the bench's SMTP sink at addr as its mail server.
func setSinkSMTP(bin, dir string, env []string, tenantID, addr string) error {
	host, port, _ := net.SplitHostPort(addr)
	pwFile := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pwFile, []byte("bench-password"), 0o600); err != nil {
		return err
	}
	_, err := cli(bin, dir, env, "tenant", "set-smtp", "--tenant", tenantID, "--host", host, "--port", port, "--tls", "none",
		"--user", "bench", "--password-file", pwFile, "--from", "Bench <bench@example.org>")
	return err
}

// mailCount counts the mails the SMTP sink took and when the first and last arrived.
type mailCount struct {
	n           atomic.Int64
	mu          sync.Mutex
	first, last time.Time
}

// sink starts the SMTP sink that counts into m.
func (m *mailCount) sink() (addr string, stop func(), err error) {
	var n atomic.Int64
	addr, stopSink, err := smtpSink(&n)
	if err != nil {
		return "", nil, err
	}
	done := make(chan struct{})
	go func() {
		seen := int64(0)
		for t := time.NewTicker(10 * time.Millisecond); ; {
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
			if now := n.Load(); now != seen {
				m.mu.Lock()
				if seen == 0 {
					m.first = time.Now()
				}
				m.last = time.Now()
				m.mu.Unlock()
				m.n.Store(now)
				seen = now
			}
		}
	}()
	return addr, func() { close(done); stopSink() }, nil
}

// report prints how many mails arrived and at what rate, first to last.
func (m *mailCount) report() {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, span := m.n.Load(), m.last.Sub(m.first)
	rate := 0.0
	if span > 0 {
		rate = float64(n) / span.Seconds()
	}
	fmt.Printf("mail: %d confirmation mails received by the SMTP sink, %.0f mails/s from the first to the last (%.1f s)\n", n, rate, span.Seconds())
}
