package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/ops"
)

// publishableSetup is a server that believes X-Forwarded-For from the test (so each case can
// be its own client address), a tenant with the forms petition and other, a publishable key
// for petition from two origins, and a secret key that reads.
type publishableSetup struct {
	s              *testServer
	tenant, pk, rd string
	pkID           string
}

const (
	submitPath = "/api/v1/forms/accept-submission"
	goodOrigin = "https://a.example"
	evilOrigin = "https://evil.example"
)

func newPublishableSetup(t *testing.T) publishableSetup {
	s := startServer(t, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.1/32")
	tn := openTenant(s)
	s.cli("form", "create", "--tenant", tn, "--form-id", "other", "--name", "Other")
	out := s.cli("key", "create", "--tenant", tn, "--publishable", "--forms", "petition", "--origins", goodOrigin+",https://b.example", "--name", "site")
	if keys := slices.Sorted(maps.Keys(out)); !slices.Equal(keys, []string{"forms", "id", "key", "origins", "scopes"}) {
		t.Fatalf("key create --publishable printed %v", out)
	}
	if fmt.Sprint(out["scopes"]) != "[submissions:write]" || fmt.Sprint(out["forms"]) != "[petition]" ||
		fmt.Sprint(out["origins"]) != "[https://a.example https://b.example]" || !strings.HasPrefix(out["key"].(string), "cf_pk_") {
		t.Fatalf("key create --publishable printed %v", out)
	}
	return publishableSetup{s: s, tenant: tn, pk: out["key"].(string), pkID: out["id"].(string), rd: s.key(tn, "submissions:read")}
}

// from is the headers of a browser at origin on client address n.
func from(origin string, n int) []string {
	return []string{"Origin: " + origin, fmt.Sprintf("X-Forwarded-For: 203.0.113.%d", n)}
}

// solved fetches a challenge for form with the publishable key and solves it as the page does.
func (p publishableSetup) solved(t *testing.T, form string, addr int) string {
	t.Helper()
	r := call(t, p.s, "GET", "/api/v1/challenges/"+form, p.pk, nil, from(goodOrigin, addr)...)
	if r.Status != 200 {
		t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	var c altcha.Challenge
	if err := json.Unmarshal(r.Body, &c); err != nil || c.Algorithm != "SHA-256" || c.MaxNumber <= 0 {
		t.Fatalf("challenge %s: %v", r.Body, err)
	}
	n, ok := altcha.Solve(c)
	if !ok {
		t.Fatal("challenge unsolvable")
	}
	return altcha.Encode(altcha.Payload{Algorithm: c.Algorithm, Challenge: c.Challenge, Number: n, Salt: c.Salt, Signature: c.Signature})
}

func webSub(id string, extra ...any) map[string]any {
	m := map[string]any{"form_id": "petition", "submission_id": id, "email": "web@example.org", "consent_to_general_contact_email": true}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

// TestPublishableKeyCORS: a preflight is answered for a publishable key's origins only, without
// credentials; a request from another origin is refused 403; answers carry the CORS headers.
func TestPublishableKeyCORS(t *testing.T) {
	t.Parallel()
	p := newPublishableSetup(t)
	pre := func(path, origin string) response {
		return call(t, p.s, "OPTIONS", path, "", nil, "Origin: "+origin, "Access-Control-Request-Method: POST",
			"Access-Control-Request-Headers: authorization, content-type")
	}
	for _, path := range []string{submitPath, "/api/v1/challenges/petition"} {
		r := pre(path, goodOrigin)
		if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != goodOrigin ||
			!strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "authorization") {
			t.Errorf("preflight %s from %s: %d %v", path, goodOrigin, r.Status, r.Header)
		}
		if r.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight allows credentials: %v", r.Header)
		}
		r = pre(path, evilOrigin)
		if r.Status != 403 || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight %s from %s: %d %v", path, evilOrigin, r.Status, r.Header)
		}
	}
	r := call(t, p.s, "GET", "/api/v1/challenges/petition", p.pk, nil, from(goodOrigin, 1)...)
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != goodOrigin || r.Header.Get("Access-Control-Allow-Credentials") != "" ||
		r.Header.Get("Deprecation") != "" {
		t.Errorf("challenge from %s: %d %v", goodOrigin, r.Status, r.Header)
	}
	// The path before /api/v1/challenges/ answers the same for a release, marked deprecated.
	old := call(t, p.s, "GET", "/api/v1/forms/petition/challenge", p.pk, nil, from(goodOrigin, 1)...)
	if old.Status != 200 || !strings.HasPrefix(old.Header.Get("Deprecation"), "@") ||
		old.Header.Get("Link") != `</api/v1/challenges/petition>; rel="successor-version"` || old.JSON(t)["challenge"] == nil {
		t.Errorf("the deprecated challenge path: %d %v %s", old.Status, old.Header, old.Body)
	}
	runCases(t, p.s, []apiCase{
		{name: "challenge from another origin", method: "GET", path: "/api/v1/challenges/petition", key: p.pk,
			headers: from(evilOrigin, 2), status: 403, kind: "Forbidden"},
		{name: "submission from another origin", path: submitPath, key: p.pk, body: webSub("w-evil", "altcha", p.solved(t, "petition", 3)),
			headers: from(evilOrigin, 3), status: 403, kind: "Forbidden"},
	})
}

// TestPublishableKeyChallenge: a solved challenge stores the submission once; a missing, wrong
// or replayed one is 400 challenge_failed; a filled honeypot is 200 and stores nothing; a
// secret key needs no challenge.
func TestPublishableKeyChallenge(t *testing.T) {
	t.Parallel()
	p := newPublishableSetup(t)
	good := p.solved(t, "petition", 10)
	forged := []byte(good)
	forged[len(forged)/2] ^= 1
	runCases(t, p.s, []apiCase{
		{name: "solved", path: submitPath, key: p.pk, body: webSub("w1", "altcha", good), headers: from(goodOrigin, 10), status: 200, empty: true},
		{name: "replayed", path: submitPath, key: p.pk, body: webSub("w2", "altcha", good), headers: from(goodOrigin, 10), status: 400, errs: []string{"challenge_failed"}},
		{name: "missing", path: submitPath, key: p.pk, body: webSub("w3"), headers: from(goodOrigin, 11), status: 400, errs: []string{"challenge_failed"}},
		{name: "invalid", path: submitPath, key: p.pk, body: webSub("w4", "altcha", string(forged)), headers: from(goodOrigin, 11), status: 400, errs: []string{"challenge_failed"}},
		{name: "garbage", path: submitPath, key: p.pk, body: webSub("w5", "altcha", "not a solution"), headers: from(goodOrigin, 11), status: 400, errs: []string{"challenge_failed"}},
		{name: "honeypot", path: submitPath, key: p.pk, body: webSub("w6", "altcha", p.solved(t, "petition", 12), "_gotcha", "http://spam.example"),
			headers: from(goodOrigin, 12), status: 200, empty: true},
		{name: "secret key needs none", path: submitPath, key: p.s.key(p.tenant, "submissions:write"), body: webSub("w7"), status: 200, empty: true},
	})
	// A publishable key's submission ids are its form's public ways' own (stored under a
	// derived id); the secret key's is the id itself.
	for id, want := range map[string]int{"w1": 200, "w2": 404, "w3": 404, "w4": 404, "w5": 404, "w6": 404, "w7": 404} {
		if r := call(t, p.s, "GET", "/api/v1/forms/submissions/"+ops.PublicSubmissionID("petition", id), p.rd, nil); r.Status != want {
			t.Errorf("public submission %s: %d, want %d", id, r.Status, want)
		}
	}
	for id, want := range map[string]int{"w1": 404, "w7": 200} {
		if r := call(t, p.s, "GET", "/api/v1/forms/submissions/"+id, p.rd, nil); r.Status != want {
			t.Errorf("submission %s: %d, want %d", id, r.Status, want)
		}
	}
	// The challenge is bound to its form: one fetched for petition fails for no other reason
	// than that when replayed on a fresh submission after the first failed validation.
	bad := webSub("w8", "altcha", p.solved(t, "petition", 13))
	delete(bad, "email")
	if r := call(t, p.s, "POST", submitPath, p.pk, bad, from(goodOrigin, 13)...); r.Status != 400 || slices.Contains(codesOf(t, r), "challenge_failed") {
		t.Errorf("invalid body with a good challenge: %d %s", r.Status, r.Body)
	}
	bad["email"] = "web@example.org"
	if r := call(t, p.s, "POST", submitPath, p.pk, bad, from(goodOrigin, 13)...); r.Status != 200 {
		t.Errorf("the corrected body with the same (unspent) challenge: %d %s", r.Status, r.Body)
	}
}

// TestPublishableKeyConfined: a publishable key is refused (403) on every other endpoint and
// on every other form, and its client address has a limit of its own (429 with retryAfter).
func TestPublishableKeyConfined(t *testing.T) {
	t.Parallel()
	p := newPublishableSetup(t)
	h := from(goodOrigin, 20)
	email := map[string]any{"email": "web@example.org"}
	cases := []apiCase{
		{name: "other form", path: submitPath, key: p.pk, body: webSub("x1", "form_id", "other", "altcha", p.solved(t, "petition", 20)), headers: h, status: 403, kind: "Forbidden"},
		{name: "other form's challenge", method: "GET", path: "/api/v1/challenges/other", key: p.pk, headers: h, status: 403, kind: "Forbidden"},
		{name: "read submission", method: "GET", path: "/api/v1/forms/submissions/x1", key: p.pk, headers: h, status: 403, kind: "Forbidden"},
		{name: "consents", method: "GET", path: "/api/v1/consents?email=web@example.org", key: p.pk, headers: h, status: 403, kind: "Forbidden"},
		{name: "consents search", path: "/api/v1/consents/search", key: p.pk, body: email, headers: h, status: 403, kind: "Forbidden"},
		{name: "expiring", method: "GET", path: "/api/v1/consents/expiring", key: p.pk, headers: h, status: 403, kind: "Forbidden"},
		{name: "erase", path: erasePath, key: p.pk, body: email, headers: h, status: 403, kind: "Forbidden"},
		{name: "export", path: exportPath, key: p.pk, body: email, headers: h, status: 403, kind: "Forbidden"},
		{name: "unsubscribe", path: "/api/v1/brevo/unsubscribe", key: p.pk, body: map[string]any{"event": "unsubscribed", "email": "web@example.org"}, headers: h, status: 403, kind: "Forbidden"},
		{name: "digitisation", path: "/api/v1/digitisation/submissions", key: p.pk, body: map[string]any{}, headers: h, status: 403, kind: "Forbidden"},
		{name: "canvassing", path: "/api/v1/canvassing/submissions", key: p.pk, body: map[string]any{}, headers: h, status: 403, kind: "Forbidden"},
		{name: "calls", path: callsPath, key: p.pk, body: map[string]any{}, headers: h, status: 403, kind: "Forbidden"},
		{name: "stripped of its prefix", method: "GET", path: "/api/v1/challenges/petition", key: "cf_" + strings.TrimPrefix(p.pk, "cf_pk_"), headers: h, status: 401, kind: "Unauthorized"},
	}
	runCases(t, p.s, cases)
	// One address: the burst (half of 60 a minute), then 429 with retryAfter.
	var last response
	for i := 0; i < 40; i++ {
		last = call(t, p.s, "GET", "/api/v1/challenges/petition", p.pk, nil, from(goodOrigin, 30)...)
		if last.Status == 429 {
			break
		}
	}
	if last.Status != 429 {
		t.Fatalf("40 requests from one address: %d", last.Status)
	}
	body := last.JSON(t)
	ra, _ := at(body, "details.retryAfter").(float64)
	if body["error"] != "RateLimitExceeded" || ra < 1 || last.Header.Get("Retry-After") != fmt.Sprint(int(ra)) {
		t.Errorf("429 %s %v", last.Body, last.Header)
	}
	// Another address is not limited by it.
	if r := call(t, p.s, "GET", "/api/v1/challenges/petition", p.pk, nil, from(goodOrigin, 31)...); r.Status != 200 {
		t.Errorf("another address: %d", r.Status)
	}
}

// TestPublishableKeyCLIRefusals: a publishable key needs forms the tenant has and origins of
// the form scheme://host; it cannot hold another scope.
func TestPublishableKeyCLIRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	for name, args := range map[string][]string{
		"unknown form":  {"--forms", "nope", "--origins", goodOrigin},
		"no forms":      {"--origins", goodOrigin},
		"no origins":    {"--forms", "petition"},
		"origin path":   {"--forms", "petition", "--origins", "https://a.example/form"},
		"origin star":   {"--forms", "petition", "--origins", "https://*.example"},
		"another scope": {"--forms", "petition", "--origins", goodOrigin, "--scopes", "all"},
	} {
		if _, err := s.cliErr(append([]string{"key", "create", "--tenant", tn, "--publishable"}, args...)...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
