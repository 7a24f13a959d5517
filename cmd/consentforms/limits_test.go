package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"golang.org/x/crypto/bcrypt"
)

// nested is a JSON value nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// TestBodyShapeLimits: a body nested deeper than 32 levels, or with more than 1000 keys and
// array elements, is refused 400 with its own code and stores nothing; one at the limits is
// accepted.
func TestBodyShapeLimits(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	sub := func(extra string) response {
		return s.do("POST", acceptPath, k, `{"form_id":"petition","consent_to_general_contact_email":true,"email":"deep@example.org",`+
			`"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d"`+extra+`}`)
	}
	for _, c := range []struct {
		name, extra, code string
	}{
		{"9999 levels deep", `,"x":` + nested(9999), "payload_too_deep"},
		{"33 levels deep", `,"x":` + nested(32), "payload_too_deep"},
		{"deep arrays", `,"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40), "payload_too_deep"},
		{"many keys", `,"x":{` + manyKeys(1200) + `}`, "payload_too_many_keys"},
		{"many array elements", `,"x":[` + strings.Repeat("0,", 5000) + `0]`, "payload_too_many_keys"},
	} {
		r := sub(c.extra)
		if m := r.JSON(t); r.Status != 400 || m["code"] != c.code || m["error"] != "ValidationError" {
			t.Errorf("%s: %d %s, want 400 %s", c.name, r.Status, r.Body, c.code)
		}
	}
	// Braces inside strings are text, not nesting.
	if r := sub(`,"x":"` + strings.Repeat("{[", 100) + `","y":` + nested(30)); r.Status != 200 {
		t.Errorf("at the limits: %d %s", r.Status, r.Body)
	}
	if r := sub(`,"x":{` + manyKeys(900) + `}`); r.Status != 200 {
		t.Errorf("900 keys: %d %s", r.Status, r.Body)
	}
	erased := erase(t, s, k, map[string]any{"email": "deep@example.org"})
	if erased.FormSubmissions != 2 {
		t.Errorf("erased %+v, want the 2 accepted submissions only", erased)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

// TestUndecodableRecordHarmsNoOne: a stored record whose body no reader can decode (as one
// nested 9,999 levels deep, accepted by earlier versions) does not stop reads, erasure, export
// or the expiry job: it is read without its custom fields, logged by row id and counted.
func TestUndecodableRecordHarmsNoOne(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("writes a bad body into the embedded store's file")
	}
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	for i, id := range []string{"bad", "good"} {
		body := fmt.Sprintf(`{"form_id":"petition","submission_id":%q,"consent_to_general_contact_email":true,"email":"p%d@example.org","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1d","note":1}`, id, i)
		if r := s.do("POST", acceptPath, k, body); r.Status != 200 {
			t.Fatalf("%s: %d %s", id, r.Status, r.Body)
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE records SET body = replace(body, '"note":1', '"note":'||?) WHERE public_id = 'bad'`, nested(10001))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"bad", "good"} {
		if r := s.do("GET", "/api/v1/forms/submissions/"+id, k, nil); r.Status != 200 {
			t.Errorf("GET %s: %d %s", id, r.Status, r.Body)
		}
	}
	if r := s.do("GET", "/api/v1/consents?email=p1@example.org", k, nil); r.Status != 200 {
		t.Errorf("consents: %d %s", r.Status, r.Body)
	}
	if r := s.do("POST", exportPath, k, map[string]any{"email": "p0@example.org"}); r.Status != 200 {
		t.Errorf("export of the person with the bad record: %d %s", r.Status, r.Body)
	}
	var buf bytes.Buffer
	if err := run(context.Background(), []string{"export"}, s.getenv, &buf, io.Discard); err != nil {
		t.Errorf("consentforms export: %v", err)
	}
	if got := erase(t, s, k, map[string]any{"email": "p0@example.org"}); got.FormSubmissions != 1 {
		t.Errorf("erasing the person with the bad record: %+v", got)
	}
}

// TestConnectionFloodKeepsServing: more idle connections without a request than the process
// has file descriptors neither stop the server nor keep it from serving once they time out.
// The child runs with 200 descriptors and a read timeout of 1 s; 300 connections are opened:
// once with the default connection cap (below the descriptors), once with a cap above them,
// so that accepting runs out of descriptors and must pause and resume.
func TestConnectionFloodKeepsServing(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("one store is enough for the transport")
	}
	for _, c := range []struct{ name, maxConns string }{{"default cap", ""}, {"cap above the descriptors", "5000"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"CONSENTFORMS_READ_TIMEOUT=1s"}
			if c.maxConns != "" {
				env = append(env, "CONSENTFORMS_MAX_CONNS="+c.maxConns)
			}
			child := startChildUnder(t, t.TempDir(), prlimit(t, "--nofile=200:200"), env...)
			flood(t, child, 300)
			if c.maxConns != "" && !strings.Contains(child.stderr.String(), "out of file descriptors") {
				t.Errorf("accepting never ran out of descriptors; the test did not test the pause:\n%s", child.stderr.String())
			}
		})
	}
}

// flood opens n idle connections to the child, waits for the server to time them out, and
// requires it alive and ready.
func flood(t *testing.T, c *childServer, n int) {
	t.Helper()
	addr := strings.TrimPrefix(c.URL, "http://")
	var conns []net.Conn
	defer func() {
		for _, cn := range conns {
			cn.Close()
		}
	}()
	for range n {
		cn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			break
		}
		conns = append(conns, cn)
	}
	// Give the server time to meet every connection (and its descriptor limit) and to time the
	// idle ones out; the flood's sockets stay open on this side.
	time.Sleep(2500 * time.Millisecond)
	if !c.alive() {
		t.Fatalf("the server exited: %s", c.stderr.String())
	}
	resp, err := http.Get(c.URL + "/readyz")
	if err != nil {
		t.Fatalf("the server does not answer after the flood: %v\n%s", err, c.stderr.String())
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("readyz after the flood: %d", resp.StatusCode)
	}
}

// rawRequest sends the head of a request with a declared body length of declared bytes and
// the first len(sent) bytes of it, and returns the connection.
func rawRequest(t *testing.T, url, path, key string, declared int, sent []byte) net.Conn {
	t.Helper()
	cn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	auth := ""
	if key != "" {
		auth = "Authorization: Bearer " + key + "\r\n"
	}
	fmt.Fprintf(cn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n", path, auth, declared)
	if _, err := cn.Write(sent); err != nil {
		t.Fatal(err)
	}
	return cn
}

// statusLine reads the answer's status line within d, or "" if none comes.
func statusLine(cn net.Conn, d time.Duration) string {
	_ = cn.SetReadDeadline(time.Now().Add(d))
	b := make([]byte, 64)
	n, _ := io.ReadAtLeast(cn, b, 12)
	line, _, _ := strings.Cut(string(b[:n]), "\r\n")
	return line
}

// TestBodiesWaitForCredentials: a request without a credential is answered 401 from its
// headers, without the server waiting for (and holding) its body; bodies of authenticated
// requests being read at once are bounded in all (503 with Retry-After over the budget).
func TestBodiesWaitForCredentials(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_MAX_BODY_BYTES_IN_FLIGHT=1500000")
	tn := openTenant(s)
	k := s.key(tn, "all")
	// 100 connections each declaring 1 MiB and sending 16 KiB of it, none with a key.
	var conns []net.Conn
	defer func() {
		for _, cn := range conns {
			cn.Close()
		}
	}()
	for range 100 {
		conns = append(conns, rawRequest(t, s.URL, acceptPath, "", 1<<20, bytes.Repeat([]byte(" "), 16<<10)))
	}
	for i, cn := range conns {
		if got := statusLine(cn, 5*time.Second); !strings.Contains(got, " 401 ") {
			t.Fatalf("unauthenticated request %d with an unfinished body: %q, want 401 at once", i, got)
		}
	}
	// One authenticated body of 1 MiB being read holds most of the 1.5 MB budget.
	body := `{"form_id":"petition","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d","pad":"` + strings.Repeat("x", 1<<20-200)
	slow := rawRequest(t, s.URL, acceptPath, k, len(body)+2, []byte(body[:1<<19]))
	defer slow.Close()
	time.Sleep(200 * time.Millisecond)
	r := s.do("POST", acceptPath, k, `{"form_id":"petition","consent_to_general_contact_email":true,"email":"b2@example.org","pad":"`+strings.Repeat("y", 800<<10)+`"}`)
	if r.Status != 503 || r.Header.Get("Retry-After") == "" {
		t.Errorf("a second large body over the in-flight budget: %d %s, want 503 with Retry-After", r.Status, r.Body)
	}
	if _, err := io.WriteString(slow, body[1<<19:]+`"}`); err != nil {
		t.Fatal(err)
	}
	if got := statusLine(slow, 5*time.Second); !strings.Contains(got, " 200 ") {
		t.Errorf("the slow body, once finished: %q, want 200", got)
	}
	if r := s.do("POST", acceptPath, k, validEmailSub); r.Status != 200 {
		t.Errorf("after the budget is given back: %d %s", r.Status, r.Body)
	}
}

// TestSignInPasswordChecksBounded: sign-in attempts from many addresses at once run at most
// CONSENTFORMS_MAX_PASSWORD_CHECKS password checks together; the rest are answered 429 with
// Retry-After, unchecked. Attempts without credentials are answered 401 without a check, and a
// staff member signs in afterwards.
func TestSignInPasswordChecksBounded(t *testing.T) {
	// Not parallel: it sets bcrypt's cost back to the server's for its own server, so that a
	// check takes long enough for the sign-ins to meet at the bound (the other tests hash at
	// the lowest cost, TestMain; parallel tests start only after this one has finished).
	tenants.PasswordCost = bcrypt.DefaultCost
	t.Cleanup(func() { tenants.PasswordCost = bcrypt.MinCost })
	s := startServer(t, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.1/32", "CONSENTFORMS_MAX_PASSWORD_CHECKS=1")
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for i := range 30 {
		c := newAdminClient(t, s, fmt.Sprintf("X-Forwarded-For: 198.51.100.%d", i+1))
		c.get("/admin/login")
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, _ := c.post("/admin/login", url.Values{"email": {fmt.Sprintf("nobody%d@example.org", i)}, "password": {"wrong-password-0"}})
			mu.Lock()
			counts[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("30 sign-ins from 30 addresses with one password check at a time: %v", counts)
	if counts[429] == 0 || counts[401]+counts[429] != 30 {
		t.Errorf("30 parallel sign-ins with one check at a time: %v, want some 429 and the rest 401", counts)
	}
	empty := newAdminClient(t, s, "X-Forwarded-For: 203.0.113.50")
	empty.get("/admin/login")
	for range 10 {
		if st, _, _ := empty.post("/admin/login", url.Values{"email": {""}, "password": {""}}); st != 401 {
			t.Errorf("sign-in without credentials: %d, want 401", st)
		}
	}
	if st, loc := newAdminClient(t, s, "X-Forwarded-For: 203.0.113.9").signIn("root@example.com", "root-password-1"); st != 303 {
		t.Errorf("sign-in afterwards: %d %s, want 303", st, loc)
	}
}

// prlimit is the prlimit command (util-linux, on every Debian system) with opts, to run the
// child under (requiredTool).
func prlimit(t *testing.T, opts ...string) []string {
	t.Helper()
	return append(append([]string{requiredTool(t, "prlimit", "apt-get install util-linux")}, opts...), "--")
}

// TestDiskFullAnswers503: when the store cannot write for want of disk (here a file size
// limit on the server process), a write is answered 503 with Retry-After and /readyz reports
// not ready; once there is room again, /readyz recovers by itself, writes succeed, and every
// acknowledged write is there.
func TestDiskFullAnswers503(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("the embedded store's files")
	}
	dir := t.TempDir()
	_, key := dirTenant(t, dir)
	c := startChildUnder(t, dir, prlimit(t, "--fsize=3000000:unlimited"))
	post := func(id string) (int, http.Header, string) {
		return c.post(t, acceptPath, key, fmt.Sprintf(`{"form_id":"petition","submission_id":%q,"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d","pad":%q}`,
			id, strings.Repeat("p", 200<<10)))
	}
	get := func(path string) int {
		req, _ := http.NewRequest("GET", c.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var acked []string
	full := false
	for i := range 40 {
		id := fmt.Sprintf("full-%d", i)
		st, h, b := post(id)
		if st == 200 {
			acked = append(acked, id)
			continue
		}
		if st != 503 || h.Get("Retry-After") == "" || !strings.Contains(b, `"retryAfter"`) {
			t.Fatalf("a write on a full disk: %d %s (Retry-After %q), want 503 with Retry-After", st, b, h.Get("Retry-After"))
		}
		full = true
		break
	}
	if !full {
		t.Fatal("the file size limit was never reached")
	}
	if st := get("/readyz"); st != 503 {
		t.Errorf("/readyz on a full disk: %d, want 503", st)
	}
	// Room again: raise the server's file size limit.
	if out, err := exec.Command(prlimit(t)[0], "--pid", fmt.Sprint(c.cmd.Process.Pid), "--fsize=unlimited:unlimited").CombinedOutput(); err != nil {
		t.Fatalf("prlimit: %v %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for get("/readyz") != 200 {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not recover once there was room")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st, _, b := post("after"); st != 200 {
		t.Errorf("a write once there is room: %d %s", st, b)
	}
	for _, id := range append(acked, "after") {
		if st := get("/api/v1/forms/submissions/" + id); st != 200 {
			t.Errorf("acknowledged %s: %d", id, st)
		}
	}
}

// TestSuspensionEndsSessions: suspending a tenant signs its staff out for good: once the
// tenant is active again, the sessions from before do not come back; a new sign-in works.
func TestSuspensionEndsSessions(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "sus@example.org", "--password", "sus-password-1", "--role", "support", "--tenant", tn)
	user := newAdminClient(t, s)
	if st, _ := user.signIn("sus@example.org", "sus-password-1"); st != 303 {
		t.Fatalf("sign-in: %d", st)
	}
	if st, _, _ := user.do("GET", "/admin/submissions", "", nil); st != 200 {
		t.Fatalf("signed in: %d", st)
	}
	// A copy of the session cookie, as a browser that sleeps through the suspension keeps it.
	kept := withCookie(t, s, user.sessionCookie())
	s.cli("tenant", "suspend", "--tenant", tn)
	if st, _, loc := user.do("GET", "/admin/submissions", "", nil); st != 303 || loc != "/admin/login" {
		t.Errorf("while suspended: %d %s, want 303 to /admin/login", st, loc)
	}
	s.cli("tenant", "activate", "--tenant", tn)
	if st, _, loc := kept.do("GET", "/admin/submissions", "", nil); st != 303 || loc != "/admin/login" {
		t.Errorf("the session from before the suspension, once active again: %d %s, want 303 to /admin/login", st, loc)
	}
	again := newAdminClient(t, s)
	if st, _ := again.signIn("sus@example.org", "sus-password-1"); st != 303 {
		t.Errorf("a new sign-in once active: %d", st)
	}
}

// TestBulkApproverNotThePuppet: a tenant admin cannot approve their own bulk erasure through
// a second account: neither one they created (before the request or after it) nor one created
// by anybody after the request may approve it (409). An admin who existed before, made by
// someone else, approves.
func TestBulkApproverNotThePuppet(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "req@example.org", "--password", "pass-word-123", "--role", "tenant_admin", "--tenant", tn)
	s.cli("staff", "create", "--email", "peer@example.org", "--password", "pass-word-123", "--role", "tenant_admin", "--tenant", tn)
	req := newAdminClient(t, s)
	req.signIn("req@example.org", "pass-word-123")
	// A second account the requester makes before asking.
	req.get("/admin/staff")
	if st, _, _ := req.post("/admin/staff", url.Values{"email": {"early@example.org"}, "password": {"pass-word-123"}, "role": {"tenant_admin"}}); st != 303 {
		t.Fatalf("create the early account: %d", st)
	}
	time.Sleep(5 * time.Millisecond)
	req.get("/admin/bulk-erasure")
	st, _, loc := req.post("/admin/bulk-erasure", url.Values{"identifiers": {"cat@example.org"}})
	m := bulkIDPath.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("request: %d %q", st, loc)
	}
	page := m[0]
	time.Sleep(5 * time.Millisecond)
	// A second account the requester makes after asking, and one an operator makes after.
	req.get("/admin/staff")
	if st, _, _ := req.post("/admin/staff", url.Values{"email": {"late@example.org"}, "password": {"pass-word-123"}, "role": {"tenant_admin"}}); st != 303 {
		t.Fatalf("create the late account: %d", st)
	}
	s.cli("staff", "create", "--email", "newbie@example.org", "--password", "pass-word-123", "--role", "tenant_admin", "--tenant", tn)
	for _, email := range []string{"early@example.org", "late@example.org", "newbie@example.org"} {
		u := newAdminClient(t, s)
		if st, _ := u.signIn(email, "pass-word-123"); st != 303 {
			t.Fatalf("%s signs in: %d", email, st)
		}
		u.get(page)
		if st, body, _ := u.post(page+"/approve", nil); st != 409 {
			t.Errorf("%s approves: %d, want 409\n%s", email, st, body)
		}
	}
	peer := newAdminClient(t, s)
	peer.signIn("peer@example.org", "pass-word-123")
	peer.get(page)
	if st, _, loc := peer.post(page+"/approve", nil); st != 303 {
		t.Errorf("an admin from before, made by someone else, approves: %d %s, want 303", st, loc)
	}
}

// TestTenantLimitsBoundAllKeys: a tenant's keys share the tenant's rate limit
// (CONSENTFORMS_TENANT_RATE_FACTOR times the per-key one), so more keys do not buy more
// throughput; and a tenant holds at most 100 usable keys.
func TestTenantLimitsBoundAllKeys(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_TENANT_RATE_FACTOR=2")
	tn := s.tenant("--rate-limit", "3")
	var keys []string
	for range 4 {
		keys = append(keys, s.key(tn, "submissions:read"))
	}
	// Each key stays within its own 3 a second; together they ask for 12 at once, over the
	// tenant's 6. Sent together, so that a busy machine cannot spread them over seconds.
	answers := make(chan response, 3*len(keys))
	var wg sync.WaitGroup
	for range 3 {
		for _, k := range keys {
			wg.Go(func() {
				r, err := send(s, "GET", "/api/v1/forms/submissions/none", k, nil)
				if err != nil {
					r.Status = -1
				}
				answers <- r
			})
		}
	}
	wg.Wait()
	close(answers)
	limited := 0
	for r := range answers {
		if r.Status == 429 {
			limited++
			if m := r.JSON(t); !strings.Contains(fmt.Sprint(m["message"]), "organisation") || r.Header.Get("Retry-After") == "" {
				t.Errorf("tenant limit answer: %s %v", r.Body, r.Header)
			}
		} else if r.Status != 404 {
			t.Errorf("a request within the limits: %d %s", r.Status, r.Body)
		}
	}
	if limited == 0 {
		t.Error("12 requests a second over 4 keys of a tenant limited to 6 a second: none refused")
	}

	// Key count: 100 usable keys at most; a revoked one makes room.
	other := s.tenant()
	var last string
	for range 100 {
		last = s.cli("key", "create", "--tenant", other, "--scopes", "submissions:read")["id"].(string)
	}
	if _, err := s.cliErr("key", "create", "--tenant", other, "--scopes", "submissions:read"); err == nil || !strings.Contains(err.Error(), "100") {
		t.Errorf("the 101st usable key: %v, want a refusal", err)
	}
	s.cli("key", "revoke", "--tenant", other, "--id", last)
	if _, err := s.cliErr("key", "create", "--tenant", other, "--scopes", "submissions:read"); err != nil {
		t.Errorf("a key after one was revoked: %v", err)
	}
}

// TestSlowWebhookSlowsOnlyItself: one tenant's endpoint that answers slowly, with a backlog
// of deliveries, does not delay another tenant's deliveries: those arrive within a few polls.
func TestSlowWebhookSlowsOnlyItself(t *testing.T) {
	t.Parallel()
	// An attempt may take a minute: delivered one after another, the other tenant's event
	// would wait behind 40 of them, far past the receiver's wait.
	s := startServer(t, append(webhookEnv, "CONSENTFORMS_WEBHOOK_TIMEOUT=60s")...)
	release := make(chan struct{})
	var hanging atomic.Int64 // attempts the slow endpoint holds open now
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		defer hanging.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	fast := newReceiver(t, false)
	a, b := openTenant(s), openTenant(s)
	s.cli("webhook", "create", "--tenant", a, "--url", slow.URL, "--events", "all")
	s.cli("webhook", "create", "--tenant", b, "--url", fast.URL, "--events", "all")
	ka, kb := s.key(a, "all"), s.key(b, "all")
	for i := range 40 {
		if r := s.do("POST", acceptPath, ka, with(validEmailSub, "email", fmt.Sprintf("slow%d@example.org", i))); r.Status != 200 {
			t.Fatalf("submission: %d", r.Status)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); hanging.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow endpoint was never called")
		}
	}
	start := time.Now()
	if r := s.do("POST", acceptPath, kb, with(validEmailSub, "email", "fast@example.org")); r.Status != 200 {
		t.Fatalf("submission: %d", r.Status)
	}
	fast.await(t, "the other tenant's delivery", func(r *receiver) bool { return len(r.got) > 0 })
	if hanging.Load() == 0 {
		t.Error("the slow endpoint's attempts had ended before the other tenant's delivery arrived")
	}
	t.Logf("the other tenant's delivery took %v while the slow endpoint held %d attempts open", time.Since(start), hanging.Load())
}

// TestWebhookTargetsSpecialPurposeRefused: an endpoint may not point at any address of the IANA
// special-purpose registries, nor at an IPv6 address that embeds an IPv4 one; a public
// address is accepted.
func TestWebhookTargetsSpecialPurposeRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	for _, host := range []string{"198.18.0.1", "198.19.255.254", "192.0.0.8", "192.88.99.1", "240.0.0.1", "0.1.2.3",
		"[64:ff9b::7f00:1]", "[64:ff9b:1::a00:1]", "[2002:7f00:1::]", "[::127.0.0.1]", "[::ffff:10.0.0.1]", "[2001::1]",
		"[2001:db8::1]", "[100::1]", "[fec0::1]", "[3fff::1]"} {
		if _, err := s.cliErr("webhook", "create", "--tenant", tn, "--url", "https://"+host+"/hook", "--events", "all"); err == nil {
			t.Errorf("an endpoint at %s was accepted", host)
		}
	}
	if _, err := s.cliErr("webhook", "create", "--tenant", tn, "--url", "https://93.184.215.14/hook", "--events", "all"); err != nil {
		t.Errorf("an endpoint at a public address: %v", err)
	}
}
