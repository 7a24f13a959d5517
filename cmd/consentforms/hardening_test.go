package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetryAfterErasure: a retried submission_id of an erased record answers 200 and
// re-creates nothing personal: the record stays erased and the person is not found again.
func TestRetryAfterErasure(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	k := s.key(openTenant(s), "all")
	body := map[string]any{"form_id": "petition", "submission_id": "retry-1", "email": "gone@example.org",
		"phone_number": "+4917612345678", "first_name": "Gone", "consent_to_general_contact_email": true}
	submit(t, s, k, body)
	if got := erase(t, s, k, map[string]any{"email": "gone@example.org"}); got.FormSubmissions != 1 {
		t.Fatalf("erased %+v", got)
	}
	submit(t, s, k, body) // the client's retry
	sub := getSubmission(t, s, k, "retry-1")
	if c := at(sub, "contact").(map[string]any); c["email"] != nil || c["phoneNumber"] != nil || c["firstName"] != nil {
		t.Errorf("the retry re-created contact data: %v", c)
	}
	for _, q := range []string{"email=gone@example.org", "phone=%2B4917612345678"} {
		r := call(t, s, "GET", "/api/v1/consents?"+q, k, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"submissions":[]`) {
			t.Errorf("the person is found again by %s: %s", q, r.Body)
		}
	}
	if got := erase(t, s, k, map[string]any{"email": "gone@example.org", "phoneNumber": "+4917612345678"}); got != (counts{}) {
		t.Errorf("a second erasure found %+v", got)
	}
}

// TestEraseNothingLeavesTheLogAlone: an erasure that matches nothing neither writes nor
// checkpoints: the embedded store's write-ahead log is not truncated by it.
func TestEraseNothingLeavesTheLogAlone(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if s.getenv("MONGODB_URI") != "" {
		t.Skip("the write-ahead log is the embedded store's")
	}
	k := s.key(openTenant(s), "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "email": "here@example.org", "consent_to_general_contact_email": true})
	wal := filepath.Join(s.Dir, "consentforms.db-wal")
	before, err := os.Stat(wal)
	if err != nil || before.Size() == 0 {
		t.Fatalf("no write-ahead log to watch: %v", err)
	}
	if got := erase(t, s, k, map[string]any{"email": "nobody@example.org"}); got != (counts{}) {
		t.Fatalf("erased %+v", got)
	}
	if after, _ := os.Stat(wal); after.Size() < before.Size() {
		t.Errorf("an erasure of nobody checkpointed the log: %d -> %d bytes", before.Size(), after.Size())
	}
}

// TestUnsubscribeBatchLimits: one request carries at most 1,000 events (more: 413 saying
// so), and every event counts against the key's rate limit.
func TestUnsubscribeBatchLimits(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant("--rate-limit", "10")
	k := s.key(tn, "all")
	batch := func(n int) []byte {
		evs := make([]map[string]any, n)
		for i := range evs {
			evs[i] = map[string]any{"event": "unsubscribe", "email": "p" + string(rune('a'+i%26)) + "@example.org"}
		}
		b, _ := json.Marshal(evs)
		return b
	}
	r := call(t, s, "POST", "/api/v1/sendgrid/unsubscribe", k, batch(1001))
	if r.Status != 413 || r.JSON(t)["code"] != "too_many_events" || !strings.Contains(string(r.Body), "1000") {
		t.Errorf("1,001 events: %d %s, want 413 too_many_events", r.Status, r.Body)
	}
	if r := call(t, s, "POST", "/api/v1/sendgrid/unsubscribe", k, batch(1000)); r.Status != 200 {
		t.Fatalf("1,000 events: %d %s", r.Status, r.Body)
	}
	// 1,000 events at 10 per second: the key's next request waits.
	r = call(t, s, "POST", "/api/v1/brevo/unsubscribe", k, map[string]any{"email": "one@example.org"})
	if r.Status != 429 {
		t.Fatalf("after 1,000 events at 10/s: %d, want 429", r.Status)
	}
	if wait, _ := r.JSON(t)["details"].(map[string]any)["retryAfter"].(float64); wait < 60 {
		t.Errorf("retryAfter %v, want about 100 s of events to pay off", wait)
	}
}

// TestPreCreatedDataDirTightened: a data dir created 0755 with a 0644 database file ends
// 0700, with every file in it (the secrets file included) 0600; on MongoDB it holds the
// secrets file alone, and is tightened too.
func TestPreCreatedDataDirTightened(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := storeEnv(t)
	if env == nil { // the embedded store's file, created before with a wide mode
		if err := os.WriteFile(filepath.Join(dir, "consentforms.db"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startOn(t, dir, env...)
	submit(t, s, s.key(openTenant(s), "all"), map[string]any{"form_id": "petition", "email": "m@example.org",
		"consent_to_general_contact_email": true})
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
}

// TestConsentSearchByPost: POST /api/v1/consents/search answers exactly what GET
// /api/v1/consents answers, with the address kept out of the URL.
func TestConsentSearchByPost(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	k := s.key(openTenant(s), "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "s1", "email": "Post@Example.org",
		"phone_number": "+4917612345670", "consent_to_general_contact_email": true})
	for _, c := range []struct {
		query string
		body  map[string]any
	}{
		{"email=post@example.org", map[string]any{"email": "post@example.org"}},
		{"phone=%2B4917612345670", map[string]any{"phone": "+4917612345670"}},
		{"email=nobody@example.org", map[string]any{"email": "nobody@example.org", "phone": nil}},
	} {
		get := call(t, s, "GET", "/api/v1/consents?"+c.query, k, nil)
		post := call(t, s, "POST", "/api/v1/consents/search", k, c.body)
		if get.Status != 200 || post.Status != 200 || string(get.Body) != string(post.Body) {
			t.Errorf("%s: GET %d %s, POST %d %s", c.query, get.Status, get.Body, post.Status, post.Body)
		}
	}
	for name, body := range map[string]any{"neither": map[string]any{}, "bad e-mail": map[string]any{"email": "x"},
		"not JSON": "email=a@example.org", "e-mail not a string": map[string]any{"email": 5}} {
		if r := call(t, s, "POST", "/api/v1/consents/search", k, body); r.Status != 400 {
			t.Errorf("%s: %d %s, want 400", name, r.Status, r.Body)
		}
	}
	if r := call(t, s, "POST", "/api/v1/consents/search", s.key(openTenant(s), "submissions:write"), map[string]any{"email": "a@example.org"}); r.Status != 403 {
		t.Errorf("without submissions:read: %d", r.Status)
	}
}

// TestStaffCreateRevealsNoOtherTenant: a tenant admin adding a user whose e-mail belongs to
// another tenant's user is not told that it exists; after a few such refusals every new user
// is refused for a while, so the form cannot list other tenants' users.
func TestStaffCreateRevealsNoOtherTenant(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	mine, other := openTenant(s), s.cli("tenant", "create", "--name", "Other")["id"].(string)
	s.cli("staff", "create", "--email", "boss@example.org", "--password", "boss-password-1", "--role", "tenant_admin", "--tenant", mine)
	for i := range 5 {
		s.cli("staff", "create", "--email", "u"+string(rune('0'+i))+"@other.example", "--password", "other-password-1", "--role", "viewer", "--tenant", other)
	}
	boss := newAdminClient(t, s)
	boss.signIn("boss@example.org", "boss-password-1")
	create := func(email string) (int, string) {
		boss.get("/admin/staff")
		st, body, _ := boss.post("/admin/staff", url.Values{"email": {email}, "password": {"a-long-password-1"}, "role": {"viewer"}})
		return st, body
	}
	for i := range 5 {
		st, body := create("u" + string(rune('0'+i)) + "@other.example")
		if st != 422 || strings.Contains(body, "exists") || !strings.Contains(body, "cannot be used") {
			t.Errorf("another tenant's address %d: %d, %v", i, st, strings.Contains(body, "exists"))
		}
	}
	if st, body := create("free@example.org"); st != 422 || !strings.Contains(body, "Too many") {
		t.Errorf("a free address after five refusals: %d, want 422 'Too many'", st)
	}
	root := newAdminClient(t, s)
	root.signIn("root@example.com", "root-password-1")
	root.get("/admin/staff")
	if st, body, _ := root.post("/admin/staff", url.Values{"email": {"u0@other.example"}, "password": {"a-long-password-1"},
		"role": {"viewer"}, "tenant": {mine}}); st != 422 || !strings.Contains(body, "exists") {
		t.Errorf("a platform admin is told plainly: %d", st)
	}
}

// TestLostSecretsFile: a server will not start beside data without its secrets file (it
// would make new keys, and nobody could be found again); `consentforms rehash` makes new keys
// and re-derives every lookup from the records, after which people are found again.
func TestLostSecretsFile(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	k := s.key(openTenant(s), "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "kept", "email": "kept@example.org",
		"consent_to_general_contact_email": true})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "erased", "email": "erased@example.org",
		"consent_to_general_contact_email": true})
	erase(t, s, k, map[string]any{"email": "erased@example.org"})
	if err := os.Remove(filepath.Join(s.Dir, "secrets.json")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = serveOn(context.Background(), configFrom(s.getenv), ln, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "rehash") {
		t.Fatalf("start without the secrets file: %v, want a refusal naming rehash", err)
	}
	out := s.cli("rehash")
	if out["records"] != float64(2) || out["rehashed"] != float64(1) {
		t.Errorf("rehash: %v, want 2 records, 1 rehashed (the erased one has no keys)", out)
	}
	again := startOn(t, s.Dir, s.envList()...)
	r := call(t, again, "GET", "/api/v1/consents?email=kept@example.org", k, nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"submissionId":"kept"`) {
		t.Errorf("after rehash: %d %s", r.Status, r.Body)
	}
	if out := s.cli("rehash"); out["rehashed"] != float64(0) {
		t.Errorf("a second rehash: %v, want nothing to do", out)
	}
}

// TestProvisionBeforeFirstStart: the README's first steps provision with the CLI before the
// server ever ran; the CLI creates the secrets file as a first start would, so the server
// then starts on that data and finds the people submitted to it.
func TestProvisionBeforeFirstStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"CONSENTFORMS_DATA_DIR": dir}
	for _, kv := range storeEnv(t) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cli := func(args ...string) map[string]any {
		var buf bytes.Buffer
		if err := run(context.Background(), args, func(k string) string { return env[k] }, &buf, io.Discard); err != nil {
			t.Fatalf("%v before the first start: %v", args, err)
		}
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	tn := cli("tenant", "create", "--name", "Early bird")["id"].(string)
	key := cli("key", "create", "--tenant", tn, "--scopes", "all")["key"].(string)
	cli("form", "create", "--tenant", tn, "--form-id", "petition", "--name", "Petition")
	if fi, err := os.Stat(filepath.Join(dir, "secrets.json")); env["MONGODB_URI"] == "" && (err != nil || fi.Mode().Perm() != 0o600) {
		t.Fatalf("secrets file after provisioning: %v %v, want one with mode 0600", fi, err)
	}
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	s := startOn(t, dir, list...)
	submit(t, s, key, map[string]any{"form_id": "petition", "submission_id": "e1", "email": "early@example.org",
		"consent_to_general_contact_email": true})
	if r := call(t, s, "GET", "/api/v1/consents?email=early@example.org", key, nil); r.Status != 200 ||
		!strings.Contains(string(r.Body), `"submissionId":"e1"`) {
		t.Errorf("consents after provisioning before the first start: %d %s", r.Status, r.Body)
	}
}
