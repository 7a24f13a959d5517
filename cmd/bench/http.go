package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// body is a ~1 KB accept-submission body; RUN, the wrk thread and its request number make each
// submission_id and e-mail address unique, also across runs on one store.
const bodyFmt = `{"form_id":"petition","submission_id":"%%s-%%d-%%d","email":"bench.%%s.%%d.%%d@example.org",` +
	`"phone_number":"+49151%%02d%%06d","first_name":"Alexandra","last_name":"Benchmark-Person","name_prefix":"Dr",` +
	`"address_street":"Long Street Name","address_house_number":"12a","address_city":"Berlin","address_postcode":"10115",` +
	`"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1y",` +
	`"consent_to_general_contact_email":true,"consent_to_general_contact_phone":true,` +
	`"consent_to_general_contact_deadline_date":"2030-12-31","consent_source":"bench landing page",` +
	`"consent_ip_address":"192.0.2.10","consent_timestamp":"2026-11-21T10:00:00Z",` +
	`"utm_campaign":"winter-appeal-2026","utm_source":"newsletter","interest":"climate and forests",` +
	`"comment":"%s"}`

// luaRequests makes wrk send a new body per request; each script adds init and done.
const luaRequests = `
local threads = {}
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
function request()
  n = n + 1
  local body = string.format(BODY, RUN, tid, n, RUN, tid, n, tid, n)
  return wrk.format("POST", PATH, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. KEY}, body)
end
`

// luaResult prints wrk's summary for runWrk to read; it ends a done function.
const luaResult = `  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout))
end
`

// luaScript is the measured runs': it has no response callback, so wrk reads responses
// without calling into Lua, for the server and the ceiling alike. done writes how many
// requests each thread generated, so that the bench reads the ids back afterwards.
const luaScript = luaRequests + `
function init(args)
  n = 0
end
function done(summary, latency, requests)
  local f = io.open(OUT, "w")
  for _, t in ipairs(threads) do f:write(t:get("tid"), " ", t:get("n"), "\n") end
  f:close()
` + luaResult

// ackScript is the verification run's: it keeps the id of every 200, to read each back.
const ackScript = luaRequests + `
function init(args)
  n = 0
  acked = {}
end
function response(status, headers, body)
  if status == 200 then acked[#acked + 1] = headers["X-Submission-Id"] end
end
function done(summary, latency, requests)
  local f = io.open(OUT, "w")
  for _, t in ipairs(threads) do
    for _, id in ipairs(t:get("acked")) do f:write(id, "\n") end
  end
  f:close()
` + luaResult

type wrkResult struct {
	Run                                                  string
	Requests, DurationUS, P50, P99, Non2xx, SocketErrors int64
}

func (r wrkResult) rps() float64 { return float64(r.Requests) / (float64(r.DurationUS) / 1e6) }

// sharedPhone is the phone number every request of the shared-person run carries.
const sharedPhone = "+4915199999999"

// textsForm is the form with published consent texts (primary purpose and e-mail, English)
// and double opt-in by e-mail that -texts posts to; "petition" has neither.
const textsForm = "petition-texts"

// variant is what the requests of a run are: a new person each on the plain form, one shared
// phone number on it, or a new person each on textsForm.
type variant int

const (
	varNew variant = iota
	varShared
	varTexts
)

// newRunID names one wrk run; its submission ids and e-mail addresses start with it.
func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "r" + hex.EncodeToString(b)
}

// runWrk runs wrk against url for d. With ack, every acknowledged id is written to out;
// otherwise out gets each thread's request count.
func runWrk(ctx context.Context, url, key, out string, d time.Duration, conns int, v variant, ack bool) (wrkResult, error) {
	shared := v == varShared
	body := fmt.Sprintf(bodyFmt, strings.Repeat("x", 180))
	if v == varTexts {
		body = strings.Replace(body, `"form_id":"petition"`, `"form_id":"`+textsForm+`"`, 1)
	}
	if shared {
		body = strings.Replace(body, `"+49151%02d%06d"`, `"`+sharedPhone+`"`, 1)
	}
	script := luaScript
	if ack {
		script = ackScript
	}
	if shared {
		// The body has no phone placeholders left: format it with the ids' arguments only.
		script = strings.ReplaceAll(script, "RUN, tid, n, RUN, tid, n, tid, n", "RUN, tid, n, RUN, tid, n")
	}
	run := newRunID()
	script = fmt.Sprintf("BODY = %q\nPATH = %q\nKEY = %q\nOUT = %q\nRUN = %q\n", body, "/api/v1/forms/accept-submission", key, out, run) + script
	f, err := os.CreateTemp("", "bench-*.lua")
	if err != nil {
		return wrkResult{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script); err != nil {
		return wrkResult{}, err
	}
	f.Close()
	cmd := exec.CommandContext(ctx, "wrk", "-t", "2", "-c", fmt.Sprint(conns), "-d", fmt.Sprintf("%ds", max(1, int(d.Round(time.Second).Seconds()))), "--timeout", "10s", "-s", f.Name(), url)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %v: %s", err, b)
	}
	m := regexp.MustCompile(`RESULT requests=(\d+) duration_us=(\d+) p50_us=(\d+) p99_us=(\d+) non2xx=(\d+) socket_errors=(\d+)`).FindStringSubmatch(string(b))
	if m == nil {
		return wrkResult{}, fmt.Errorf("wrk output: %s", b)
	}
	r := wrkResult{Run: run}
	for i, dst := range []*int64{&r.Requests, &r.DurationUS, &r.P50, &r.P99, &r.Non2xx, &r.SocketErrors} {
		fmt.Sscan(m[i+1], dst)
	}
	return r, nil
}

// serveCeiling is `bench ceiling -addr ADDR`: the parse-only ceiling, in a process of its
// own. It serves the route with a plain Fiber handler that parses the body and answers 200,
// nothing else.
func serveCeiling(addr string) error {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Post("/api/v1/forms/accept-submission", func(c *fiber.Ctx) error {
		var m map[string]any
		if err := c.BodyParser(&m); err != nil {
			return c.SendStatus(400)
		}
		return c.SendStatus(200)
	})
	return app.Listen(addr)
}

// startCeiling runs serveCeiling in a child process (this binary) and waits until it listens.
func startCeiling(ctx context.Context) (url string, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "ceiling", "-addr", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("the ceiling did not listen")
}

// webhookSink answers every outgoing webhook delivery 204: the bench's endpoint subscribed to
// consent.granted, so intake writes an outbox event per submission and the dispatcher runs.
// Those that name consent.confirmation_requested (-texts) are counted in confirm too.
func webhookSink(delivered, confirm *atomic.Int64) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delivered.Add(1)
		if b, _ := io.ReadAll(r.Body); bytes.Contains(b, []byte(`"consent.confirmation_requested"`)) {
			confirm.Add(1)
		}
		w.WriteHeader(204)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/hook", func() { _ = srv.Close() }, nil
}

// settle waits until no delivery has arrived for half a second (at most two minutes) and
// returns how long deliveries went on arriving.
func settle(delivered *atomic.Int64) time.Duration {
	const quiet, most = 500 * time.Millisecond, 2 * time.Minute
	start := time.Now()
	last, at := delivered.Load(), start
	for time.Since(start) < most {
		time.Sleep(50 * time.Millisecond)
		if n := delivered.Load(); n != last {
			last, at = n, time.Now()
		} else if time.Since(at) >= quiet {
			break
		}
	}
	return at.Sub(start)
}

// target is one server under test: the binary, on a data dir of its own.
type target struct {
	name     string
	srv      *server
	key, dir string
	runs     map[variant][]wrkResult
	cpu, kib map[variant][]float64 // per request, per run
	// drain is how long, per run, deliveries went on arriving after wrk stopped.
	drain map[variant][]float64
	// settle waits until the webhook deliveries stop arriving (settle); delivered counts them.
	settle    func() time.Duration
	delivered *atomic.Int64
	// drainCPU is the server's CPU per delivery while deliveries went on after a run; during
	// is the deliveries per second that arrived while wrk ran.
	drainCPU, during map[variant][]float64
	// discards: the binary was built with the benchdiscard tag and stores nothing, so nothing
	// is read back; noHook: the tenant has no webhook endpoint.
	discards, noHook bool
}

// targetOpts are how startTarget provisions a target: texts as benchHTTP's; noHook leaves
// the tenant without a webhook endpoint; discards marks a binary built with the benchdiscard
// tag.
// mail gives the tenant a mail server (the bench's SMTP sink at smtpAddr), so that every
// double-opt-in submission of textsForm queues its confirmation mail too.
type targetOpts struct {
	texts, noHook, discards, mail bool
	smtpAddr                      string
}

// startTarget provisions a data dir for bin and starts it. With texts it also creates
// textsForm, and the webhook endpoint subscribes to consent.confirmation_requested too, as a
// tenant that sends the confirmation links would.
func startTarget(ctx context.Context, name, bin, hook string, o targetOpts) (*target, error) {
	dir, err := os.MkdirTemp("", "bench-http")
	if err != nil {
		return nil, err
	}
	env := []string{"CONSENTFORMS_WEBHOOK_ALLOW_INSECURE=1"}
	if o.discards {
		// The benchdiscard build refuses to run without it (sqlite/discard_on.go).
		env = append(env, "CONSENTFORMS_BENCH_DISCARD=acknowledge-and-lose-every-submission")
	}
	tn, key, err := provision(bin, dir, env, "--retention", "2y")
	if err != nil {
		return nil, err
	}
	events := "consent.granted"
	if o.texts {
		events += ",consent.confirmation_requested"
		for _, args := range [][]string{
			{"form", "create", "--tenant", tn, "--form-id", textsForm},
			{"form", "text", "--tenant", tn, "--form-id", textsForm, "--consent", "primary_purpose", "--lang", "en", "--text",
				"Yes, add my name to the petition and keep me informed about it until the petition is handed over."},
			{"form", "text", "--tenant", tn, "--form-id", textsForm, "--consent", "general_contact_email", "--lang", "en", "--text",
				"Yes, I would like to receive news about your campaigns by e-mail. I can unsubscribe at any time."},
			{"form", "update", "--tenant", tn, "--form-id", textsForm, "--double-opt-in", "email", "--remind-after", "none"},
		} {
			if _, err := cli(bin, dir, env, args...); err != nil {
				return nil, err
			}
		}
	}
	if !o.noHook {
		if _, err := cli(bin, dir, env, "webhook", "create", "--tenant", tn, "--url", hook, "--events", events); err != nil {
			return nil, err
		}
	}
	if o.mail {
		if err := setSinkSMTP(bin, dir, env, tn, o.smtpAddr); err != nil {
			return nil, err
		}
	}
	srv, err := startServer(ctx, bin, dir, env...)
	if err != nil {
		return nil, err
	}
	return &target{name: name, srv: srv, key: key, dir: dir, runs: map[variant][]wrkResult{}, discards: o.discards, noHook: o.noHook,
		cpu: map[variant][]float64{}, kib: map[variant][]float64{}, drain: map[variant][]float64{}, drainCPU: map[variant][]float64{}, during: map[variant][]float64{}}, nil
}

func (t *target) close() {
	t.srv.stop()
	os.RemoveAll(t.dir)
}

// measure runs wrk once against t and checks that the submissions it answered are stored. The
// run's CPU and bytes written are counted until its webhook deliveries have all arrived, so
// that they include sending every event of the run, and so that no run's deliveries are sent
// during the next run (of the ceiling or of the other binary) and slow it.
func (t *target) measure(ctx context.Context, d time.Duration, conns int, v variant) error {
	out := filepath.Join(t.dir, "counts")
	cpu0, w0 := t.srv.usage()
	before := t.delivered.Load()
	r, err := runWrk(ctx, t.srv.url, t.key, out, d, conns, v, false)
	if err != nil {
		return err
	}
	cpuMid, _ := t.srv.usage()
	n0 := t.delivered.Load()
	t.during[v] = append(t.during[v], float64(n0-before)/(float64(r.DurationUS)/1e6))
	t.drain[v] = append(t.drain[v], t.settle().Seconds())
	cpu1, w1 := t.srv.usage()
	if n := t.delivered.Load() - n0; n > 0 {
		t.drainCPU[v] = append(t.drainCPU[v], float64((cpu1-cpuMid).Microseconds())/float64(n))
	}
	if r.Non2xx > 0 || r.SocketErrors > 0 {
		return fmt.Errorf("%s: %d answers other than 2xx, %d socket errors", t.name, r.Non2xx, r.SocketErrors)
	}
	if !t.discards {
		found, err := countStored(t.srv.url, t.key, r.Run, out)
		if err != nil {
			return err
		}
		// Every request wrk counted was answered 2xx; those still in flight when it stopped
		// may be stored too, so at least as many ids as answers must read back.
		if found < r.Requests {
			return fmt.Errorf("%s: %d submissions answered 200, only %d stored", t.name, r.Requests, found)
		}
	}
	t.runs[v] = append(t.runs[v], r)
	if r.Requests > 0 {
		t.cpu[v] = append(t.cpu[v], float64((cpu1-cpu0).Microseconds())/float64(r.Requests))
		t.kib[v] = append(t.kib[v], float64(w1-w0)/1024/float64(r.Requests))
	}
	return nil
}

// benchHTTP measures accept-submission under wrk on the embedded store against the parse-only
// ceiling (its own process), with retention on the tenant and one webhook endpoint subscribed
// to consent.granted: after a warm-up of each, rounds alternate the ceiling and the server(s)
// (with base, the same measurements of a second binary, e.g. the commit before), and medians
// are reported. Each measured run checks that every answered submission reads back; a last,
// unmeasured run keeps each acknowledged id (a wrk response callback) and reads each back.
// With texts, the rounds measure the plain form and textsForm (consent texts, double opt-in
// by e-mail) instead of the plain form and the shared phone, in alternating order, and report
// the one's throughput and CPU per request against the other's.
//
// With discard (a binary built with the benchdiscard tag), the rounds measure the parts of a
// submission's cost instead, a new person each: bin with every feature on, bin on a tenant
// without a webhook endpoint, and discard, whose store acknowledges without writing (the
// request path alone); base and texts do not apply.
func benchHTTP(ctx context.Context, bin, base, discard string, d time.Duration, conns, rounds int, texts, withMail bool) error {
	if d == 0 {
		d = 5 * time.Second
	}
	if rounds <= 0 {
		rounds = 3
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk not found: apt-get install wrk")
	}
	var delivered, confirm atomic.Int64
	hook, stopHook, err := webhookSink(&delivered, &confirm)
	if err != nil {
		return err
	}
	defer stopHook()
	ceilURL, stopCeil, err := startCeiling(ctx)
	if err != nil {
		return err
	}
	defer stopCeil()
	var targets []*target
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	specs, err := targetSpecs(bin, base, discard, texts)
	if err != nil {
		return err
	}
	var mails mailCount
	if withMail {
		if !texts || discard != "" {
			return fmt.Errorf("-mail measures the double-opt-in form: give -texts, no -discard")
		}
		addr, stop, err := mails.sink()
		if err != nil {
			return err
		}
		defer stop()
		specs = append(specs, targetSpec{"this build, mail server on (" + bin + ")", bin, targetOpts{texts: true, mail: true, smtpAddr: addr}})
	}
	for _, sp := range specs {
		t, err := startTarget(ctx, sp.name, sp.bin, hook, sp.o)
		if err != nil {
			return err
		}
		t.settle, t.delivered = func() time.Duration { return settle(&delivered) }, &delivered
		targets = append(targets, t)
	}

	fmt.Printf("wrk: 2 threads, %d connections, %s per run, ~1 KB body, %d rounds after a warm-up, medians\n", conns, d, rounds)
	if err := warmUp(ctx, ceilURL, targets, max(d/2, 2*time.Second), conns, texts); err != nil {
		return err
	}
	ceil, err := runRounds(ctx, ceilURL, targets, d, conns, rounds, texts, discard != "")
	if err != nil {
		return err
	}
	reportHTTP(targets, ceil, texts)
	if discard != "" {
		reportParts(targets)
	}
	if err := verifyAcked(ctx, targets, conns); err != nil {
		return err
	}
	fmt.Printf("outgoing webhooks: %d deliveries received by the bench's endpoint, %d of them consent.confirmation_requested\n", delivered.Load(), confirm.Load())
	if withMail {
		mails.report()
	}
	return nil
}

// targetSpec names a binary benchHTTP measures and how its target is provisioned.
type targetSpec struct {
	name, bin string
	o         targetOpts
}

// targetSpecs are benchHTTP's targets: bin (and base), or with discard the three parts.
func targetSpecs(bin, base, discard string, texts bool) ([]targetSpec, error) {
	if discard != "" {
		if base != "" || texts {
			return nil, fmt.Errorf("-discard measures the parts of one binary: no -base, no -texts")
		}
		return []targetSpec{
			{"every feature on (" + bin + ")", bin, targetOpts{}},
			{"no webhook endpoint (" + bin + ")", bin, targetOpts{noHook: true}},
			{"the request path alone, nothing stored (" + discard + ")", discard, targetOpts{noHook: true, discards: true}},
		}, nil
	}
	specs := []targetSpec{{"this build (" + bin + ")", bin, targetOpts{texts: texts}}}
	if base != "" {
		specs = append(specs, targetSpec{"base (" + base + ")", base, targetOpts{texts: texts}})
	}
	return specs, nil
}

// runRounds runs the measured rounds, each the ceiling and then every target once per variant
// (with parts, a new person each only), and returns the ceiling's runs.
func runRounds(ctx context.Context, ceilURL string, targets []*target, d time.Duration, conns, rounds int, texts, parts bool) ([]wrkResult, error) {
	var ceil []wrkResult
	for round := range rounds {
		c, err := runWrk(ctx, ceilURL, "", os.DevNull, d, conns, varNew, false)
		if err != nil {
			return nil, err
		}
		ceil = append(ceil, c)
		// The order of the targets alternates from round to round, so neither always follows
		// the ceiling.
		order := slices.Clone(targets)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		variants := []variant{varNew, varShared}
		if texts {
			variants = []variant{varNew, varTexts}
			if round%2 == 1 {
				slices.Reverse(variants)
			}
		}
		if parts {
			variants = []variant{varNew}
		}
		for _, v := range variants {
			for _, t := range order {
				if err := t.measure(ctx, d, conns, v); err != nil {
					return nil, err
				}
			}
		}
	}
	return ceil, nil
}

// warmUp runs the ceiling and every target for warm before the measured rounds.
func warmUp(ctx context.Context, ceilURL string, targets []*target, warm time.Duration, conns int, texts bool) error {
	if _, err := runWrk(ctx, ceilURL, "", os.DevNull, warm, conns, varNew, false); err != nil {
		return err
	}
	for _, t := range targets {
		if _, err := runWrk(ctx, t.srv.url, t.key, os.DevNull, warm, conns, varNew, false); err != nil {
			return err
		}
		if texts {
			if _, err := runWrk(ctx, t.srv.url, t.key, os.DevNull, warm, conns, varTexts, false); err != nil {
				return err
			}
		}
		t.settle()
	}
	return nil
}

// reportHTTP prints the ceiling's rate, then each target's per variant: the rate and its ratio
// to the ceiling, latencies, CPU and bytes written per request.
func reportHTTP(targets []*target, ceil []wrkResult, texts bool) {
	ceilRPS := median(ceil, wrkResult.rps)
	fmt.Printf("%-44s %8.0f req/s (median of %d; runs %s)\n", "parse-only Fiber handler (ceiling)", ceilRPS, len(ceil), rates(ceil))
	for _, t := range targets {
		variants := []variant{varNew, varShared}
		if texts {
			variants = []variant{varNew, varTexts}
		}
		for _, v := range variants {
			runs := t.runs[v]
			if len(runs) == 0 {
				continue
			}
			name := t.name + ", a new person each"
			switch v {
			case varShared:
				name = t.name + ", one shared phone"
			case varTexts:
				name = t.name + ", a new person each, form with consent texts and double opt-in by e-mail"
			}
			var ratios []float64
			for i, r := range runs {
				ratios = append(ratios, r.rps()/ceil[i].rps())
			}
			fmt.Printf("%s\n  %8.0f req/s  ratio to the ceiling %.3f (median of the rounds' ratios %s)\n", name,
				median(runs, wrkResult.rps), medianOf(ratios), fmtAll(ratios, "%.3f"))
			fmt.Printf("  p50 %.1f ms  p99 %.1f ms (medians)  server CPU %.0f µs and %.1f KiB written per request (medians of %s µs, %s KiB)\n",
				median(runs, func(r wrkResult) float64 { return float64(r.P50) / 1000 }),
				median(runs, func(r wrkResult) float64 { return float64(r.P99) / 1000 }),
				medianOf(t.cpu[v]), medianOf(t.kib[v]), fmtAll(t.cpu[v], "%.0f"), fmtAll(t.kib[v], "%.1f"))
			if t.noHook {
				continue
			}
			fmt.Printf("  webhook deliveries: %.0f a second arrived while wrk ran (medians of %s); they went on arriving for %s s after wrk stopped (counted in the CPU and bytes above), %.0f µs of server CPU per delivery then (medians of %s)\n",
				medianOf(t.during[v]), fmtAll(t.during[v], "%.0f"), fmtAll(t.drain[v], "%.1f"), medianOf(t.drainCPU[v]), fmtAll(t.drainCPU[v], "%.0f"))
		}
		if texts {
			var tput, cpu []float64
			for i, r := range t.runs[varTexts] {
				tput = append(tput, r.rps()/t.runs[varNew][i].rps())
				cpu = append(cpu, t.cpu[varTexts][i]/t.cpu[varNew][i])
			}
			fmt.Printf("%s: texts and double opt-in against the plain form: throughput ratio %.3f, CPU per request ratio %.3f (medians of the rounds' ratios %s; %s)\n",
				t.name, medianOf(tput), medianOf(cpu), fmtAll(tput, "%.3f"), fmtAll(cpu, "%.3f"))
		}
	}
}

// verifyAcked reads back, on each target, every submission a short verification run had
// acknowledged: one missing is an error.
func verifyAcked(ctx context.Context, targets []*target, conns int) error {
	for _, t := range targets {
		if t.discards {
			continue
		}
		out := filepath.Join(t.dir, "acked.ids")
		r, err := runWrk(ctx, t.srv.url, t.key, out, 2*time.Second, conns, varNew, true)
		if err != nil {
			return err
		}
		missing, total, err := readBack(t.srv.url, t.key, out)
		if err != nil {
			return err
		}
		rss, peak := t.srv.memory()
		fmt.Printf("%s: read back %d acknowledged submissions of a verification run (%d answers other than 200), %d missing; memory now %.0f MiB, peak %.0f MiB\n",
			t.name, total, r.Non2xx, missing, rss, peak)
		if missing > 0 {
			return fmt.Errorf("%d acknowledged submissions are missing", missing)
		}
	}
	return nil
}

// reportParts prints what each part adds to a submission's server CPU, from the three targets
// of benchHTTP's discard mode (every feature on, no webhook endpoint, the request path alone).
func reportParts(targets []*target) {
	if len(targets) != 3 {
		return
	}
	all, noHook, alone := medianOf(targets[0].cpu[varNew]), medianOf(targets[1].cpu[varNew]), medianOf(targets[2].cpu[varNew])
	fmt.Printf("parts of a submission's server CPU (medians): the request path %.0f µs, the store %+.0f µs, the outgoing webhook (its outbox row, its delivery, the delivery's outcome written) %+.0f µs = %.0f µs\n",
		alone, noHook-alone, all-noHook, all)
}

func median(runs []wrkResult, f func(wrkResult) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	return medianOf(v)
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rates(runs []wrkResult) string {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = r.rps()
	}
	return fmtAll(v, "%.0f")
}

func fmtAll(v []float64, f string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(f, x)
	}
	return strings.Join(s, "/")
}

// countStored reads back every id a run generated (its run id, per thread 1..n, as counted in
// file) and returns how many are stored.
func countStored(url, key, run, file string) (int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	ids := make(chan string)
	var found atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for id := range ids {
				if get(url, key, id) == 200 {
					found.Add(1)
				}
			}
		})
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var tid, n int
		if _, err := fmt.Sscan(line, &tid, &n); err != nil {
			continue
		}
		for i := 1; i <= n; i++ {
			ids <- fmt.Sprintf("%s-%d-%d", run, tid, i)
		}
	}
	close(ids)
	wg.Wait()
	return found.Load(), nil
}

// readClient reads submissions back over kept connections: one per reading goroutine.
var readClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

func get(url, key, id string) int {
	req, _ := http.NewRequest("GET", url+"/api/v1/forms/submissions/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := readClient.Do(req)
	if err != nil {
		return 0
	}
	// Read to the end, so that the connection is kept for the next read, not closed.
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
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
	for range 16 {
		wg.Go(func() {
			for id := range ids {
				if get(url, key, id) != 200 {
					miss.Add(1)
				}
			}
		})
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
