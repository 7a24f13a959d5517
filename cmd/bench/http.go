package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// body is a ~1 KB accept-submission body; %d/%d make each submission_id unique.
const bodyFmt = `{"form_id":"petition","submission_id":"b%%d-%%d","email":"bench%%d.%%d@example.org",` +
	`"phone_number":"+49151%%02d%%06d","first_name":"Alexandra","last_name":"Benchmark-Person","name_prefix":"Dr",` +
	`"address_street":"Long Street Name","address_house_number":"12a","address_city":"Berlin","address_postcode":"10115",` +
	`"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1y",` +
	`"consent_to_general_contact_email":true,"consent_to_general_contact_phone":true,` +
	`"consent_to_general_contact_deadline_date":"2030-12-31","consent_source":"bench landing page",` +
	`"consent_ip_address":"192.0.2.10","consent_timestamp":"2026-11-21T10:00:00Z",` +
	`"utm_campaign":"winter-appeal-2026","utm_source":"newsletter","interest":"climate and forests",` +
	`"comment":"%s"}`

const luaScript = `
local threads = {}
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
function init(args)
  n = 0
  acked = {}
  bad = 0
end
function request()
  n = n + 1
  local body = string.format(BODY, tid, n, tid, n, tid, n)
  return wrk.format("POST", PATH, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. KEY}, body)
end
function response(status, headers, body)
  if status == 200 then
    local id = headers["X-Submission-Id"]
    if id then acked[#acked + 1] = id end
  else
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local f = io.open(OUT, "w")
  local bad_total = 0
  for _, t in ipairs(threads) do
    for _, id in ipairs(t:get("acked")) do f:write(id, "\n") end
    bad_total = bad_total + t:get("bad")
  end
  f:close()
  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d non200=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad_total,
    e.connect + e.read + e.write + e.timeout))
end
`

type wrkResult struct {
	Requests, DurationUS, P50, P99, Non200, SocketErrors int64
}

func (r wrkResult) rps() float64 { return float64(r.Requests) / (float64(r.DurationUS) / 1e6) }

// sharedPhone is the phone number every request of the shared-person run carries.
const sharedPhone = "+4915199999999"

func runWrk(ctx context.Context, url, key, out string, d time.Duration, conns int, shared bool) (wrkResult, error) {
	body := fmt.Sprintf(bodyFmt, strings.Repeat("x", 180))
	if shared {
		body = strings.Replace(body, `"+49151%02d%06d"`, `"`+sharedPhone+`"`, 1)
	}
	script := fmt.Sprintf("BODY = %q\nPATH = %q\nKEY = %q\nOUT = %q\n", body, "/api/v1/forms/accept-submission", key, out) + luaScript
	f, err := os.CreateTemp("", "bench-*.lua")
	if err != nil {
		return wrkResult{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script); err != nil {
		return wrkResult{}, err
	}
	f.Close()
	cmd := exec.CommandContext(ctx, "wrk", "-t", "2", "-c", fmt.Sprint(conns), "-d", d.String(), "--timeout", "10s", "-s", f.Name(), url)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %v: %s", err, b)
	}
	m := regexp.MustCompile(`RESULT requests=(\d+) duration_us=(\d+) p50_us=(\d+) p99_us=(\d+) non200=(\d+) socket_errors=(\d+)`).FindStringSubmatch(string(b))
	if m == nil {
		return wrkResult{}, fmt.Errorf("wrk output: %s", b)
	}
	var r wrkResult
	for i, dst := range []*int64{&r.Requests, &r.DurationUS, &r.P50, &r.P99, &r.Non200, &r.SocketErrors} {
		fmt.Sscan(m[i+1], dst)
	}
	return r, nil
}

// parseOnly serves the same route with a handler that only parses the body: the ceiling.
func parseOnly() (string, func(), error) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Post("/api/v1/forms/accept-submission", func(c *fiber.Ctx) error {
		var m map[string]any
		if err := json.Unmarshal(c.Body(), &m); err != nil {
			return c.SendStatus(400)
		}
		c.Set("X-Submission-Id", fmt.Sprint(m["submission_id"]))
		c.Status(200)
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go func() { _ = app.Listener(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = app.Shutdown() }, nil
}

// benchHTTP measures accept-submission under wrk on the embedded store, next to a Fiber
// handler that only parses the same body (the ceiling, measured in the same run): once with a
// new person per request, once with every request sharing one phone number. Every
// acknowledged submission is read back, and the server's peak memory is reported.
func benchHTTP(ctx context.Context, bin string, d time.Duration, conns int) error {
	if d == 0 {
		d = 15 * time.Second
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk not found: apt-get install wrk")
	}
	dir, err := os.MkdirTemp("", "bench-http")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	_, key, err := provision(bin, dir, nil)
	if err != nil {
		return err
	}
	srv, err := startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	ceilURL, stopCeil, err := parseOnly()
	if err != nil {
		return err
	}
	defer stopCeil()

	fmt.Printf("wrk: 2 threads, %d connections, %s per run, ~1 KB body\n", conns, d)
	ceil, err := runWrk(ctx, ceilURL, key, filepath.Join(dir, "ceil.ids"), d, conns, false)
	if err != nil {
		return err
	}
	report("parse-only Fiber handler (ceiling)", ceil)
	for _, run := range []struct {
		name   string
		shared bool
	}{{"accept-submission, a new person each", false}, {"accept-submission, one shared phone", true}} {
		out := filepath.Join(dir, fmt.Sprintf("acked-%v.ids", run.shared))
		cpu0, w0 := srv.usage()
		r, err := runWrk(ctx, srv.url, key, out, d, conns, run.shared)
		if err != nil {
			return err
		}
		cpu1, w1 := srv.usage()
		report(run.name, r)
		fmt.Printf("%-40s ratio to the ceiling %.3f\n", "", r.rps()/ceil.rps())
		if r.Requests > 0 {
			fmt.Printf("%-40s server CPU %.0f µs and %.1f KiB written to storage per request\n", "",
				float64((cpu1-cpu0).Microseconds())/float64(r.Requests), float64(w1-w0)/1024/float64(r.Requests))
		}
		missing, total, err := readBack(srv.url, key, out)
		if err != nil {
			return err
		}
		fmt.Printf("%-40s read back %d acknowledged submissions, %d missing\n", "", total, missing)
		if missing > 0 {
			return fmt.Errorf("%d acknowledged submissions are missing", missing)
		}
	}
	rss, peak := srv.memory()
	fmt.Printf("server memory: resident %.0f MiB now, peak %.0f MiB\n", rss, peak)
	return nil
}

func report(name string, r wrkResult) {
	fmt.Printf("%-40s %8.0f req/s  p50 %6.1f ms  p99 %6.1f ms  requests %d  non-200 %d  socket errors %d\n",
		name, r.rps(), float64(r.P50)/1000, float64(r.P99)/1000, r.Requests, r.Non200, r.SocketErrors)
}

// readBack GETs every acknowledged submission id.
func readBack(url, key, file string) (missing, total int, err error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	ids := make(chan string)
	var miss atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ids {
				req, _ := http.NewRequest("GET", url+"/api/v1/forms/submissions/"+id, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					miss.Add(1)
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
		}()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		total++
		ids <- sc.Text()
	}
	close(ids)
	wg.Wait()
	return int(miss.Load()), total, sc.Err()
}
