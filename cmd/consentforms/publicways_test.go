package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/ops"
)

// pageChallenge fetches the hosted page's challenge and solves it as the page's script does.
func pageChallenge(t *testing.T, s *testServer, page string, headers ...string) string {
	t.Helper()
	r := call(t, s, "GET", page+"/challenge", "", nil, headers...)
	if r.Status != 200 {
		t.Fatalf("page challenge: %d %s", r.Status, r.Body)
	}
	var c altcha.Challenge
	if err := json.Unmarshal(r.Body, &c); err != nil {
		t.Fatal(err)
	}
	n, ok := altcha.Solve(c)
	if !ok {
		t.Fatal("challenge unsolvable")
	}
	return altcha.Encode(altcha.Payload{Algorithm: c.Algorithm, Challenge: c.Challenge, Number: n, Salt: c.Salt, Signature: c.Signature})
}

// TestHostedPageDoubleOptIn: the hosted page is the way most supporters sign, and it runs the
// same rules as the API: on a double-opt-in form with published texts its e-mail consent is
// stored pending under the text version the page showed, the thanks say to check the inbox,
// and the confirmation event carries an absolute link of the public URL — never of the Host
// header the browser sent.
func TestHostedPageDoubleOptIn(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, false)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	rd := s.key(tn, "submissions:read")
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--hosted-page", "on")
	primary := s.cli("form", "text", "--tenant", tn, "--form-id", "petition", "--consent", "primary_purpose", "--lang", "en", "--text", "We keep your signature for the petition.")
	mail := s.cli("form", "text", "--tenant", tn, "--form-id", "petition", "--consent", "general_contact_email", "--lang", "en", "--text", "We may write to you about the forest.")
	s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL+"/hooks", "--events", "consent.confirmation_requested,consent.granted")
	page := "/f/" + tn + "/petition"
	evil := []string{"Host: evil.example", "X-Forwarded-Host: evil.example", "X-Forwarded-Proto: https"}
	r := call(t, s, "GET", page, "", nil, evil...)
	if r.Status != 200 || !strings.Contains(string(r.Body), "We may write to you about the forest.") {
		t.Fatalf("page: %d %s", r.Status, r.Body)
	}
	sid := hostedSubmissionID.FindStringSubmatch(string(r.Body))[1]
	if !strings.Contains(string(r.Body), `name="consent_text_version" value="`+mail["version"].(string)+`"`) {
		t.Errorf("the page does not name the text version it shows (%s)", mail["version"])
	}
	v := url.Values{"submission_id": {sid}, "email": {"ada@example.org"}, "consent_to_primary_purpose": {"on"},
		"consent_to_general_contact_email": {"on"}, "consent_text_version": {mail["version"].(string)},
		"altcha": {pageChallenge(t, s, page, evil...)}, "consent_ip_address": {"203.0.113.9"}}
	done := call(t, s, "POST", page, "", v.Encode(), append(evil, "Content-Type: application/x-www-form-urlencoded")...)
	if done.Status != 200 || !strings.Contains(string(done.Body), `data-testid="form-check-inbox"`) {
		t.Fatalf("post: %d %s", done.Status, done.Body)
	}
	id := ops.PublicSubmissionID("petition", sid)
	rec := recordRead(t, s, rd, id)
	email, pp := consentOf(rec, "generalContactEmail"), consentOf(rec, "primaryPurpose")
	if email["status"] != "pending" || pp["status"] != "granted" {
		t.Fatalf("consents %v; want e-mail pending, primary granted", rec["consents"])
	}
	if str(rec, "consents.generalContactEmail.text.version") != mail["version"] || str(rec, "consents.primaryPurpose.text.version") != primary["version"] {
		t.Errorf("text versions %v; want %s and %s", rec["consents"], primary["version"], mail["version"])
	}
	link := pathOf(t, s, email["confirmationUrl"])
	ev := awaitEvent(t, rcv, "consent.confirmation_requested")
	if !strings.Contains(string(ev.body), `"`+s.LinkBase+link+`"`) {
		t.Errorf("the event lacks the absolute confirmation link %s: %s", s.LinkBase+link, ev.body)
	}
	for _, where := range []string{string(ev.body), string(recordReadRaw(t, s, rd, id))} {
		if strings.Contains(where, "evil.example") || strings.Contains(where, `"/c/`) || strings.Contains(where, `"/w/`) {
			t.Errorf("a link follows the Host header or is relative: %s", where)
		}
	}
	// The proof is the server's: the browser's address field is ignored.
	if strings.Contains(string(recordReadRaw(t, s, rd, id)), "203.0.113.9") {
		t.Error("the record keeps a browser-written consent_ip_address")
	}
	// The confirmation link works from the page's event.
	if c := call(t, s, "POST", link, "", nil); c.Status != 200 {
		t.Errorf("confirm: %d %s", c.Status, c.Body)
	}
	if got := consentOf(recordRead(t, s, rd, id), "generalContactEmail")["status"]; got != "granted" {
		t.Errorf("after confirming: %v", got)
	}
}

// recordReadRaw is GET /api/v1/forms/submissions/{id}, its body as sent.
func recordReadRaw(t *testing.T, s *testServer, key, id string) []byte {
	t.Helper()
	r := call(t, s, "GET", "/api/v1/forms/submissions/"+id, key, nil)
	if r.Status != 200 {
		t.Fatalf("record read %s: %d %s", id, r.Status, r.Body)
	}
	return r.Body
}

// TestHostedPageChallengeRequired: a post without the challenge is refused unless the form
// allows the no-script fallback; then each client address (an IPv6 /64 as one) gets a few an
// hour, each marked unchallenged, and what is refused stores nothing. A form whose hosted page
// is off answers 404 on every path of it, a form a publishable key names has one.
func TestHostedPageChallengeRequired(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.1/32")
	tn := openTenant(s)
	rd := s.key(tn, "submissions:read")
	page := "/f/" + tn + "/petition"
	s.cli("form", "create", "--tenant", tn, "--form-id", "strict")
	s.cli("form", "update", "--tenant", tn, "--form-id", "strict", "--hosted-page", "on")
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "on", "--allow-no-js", "on")
	s.cli("form", "create", "--tenant", tn, "--form-id", "off")
	off := "/f/" + tn + "/off"
	for _, p := range []string{off, off + "/challenge"} {
		if r := call(t, s, "GET", p, "", nil); r.Status != 404 {
			t.Errorf("GET %s of a form without a hosted page: %d", p, r.Status)
		}
	}
	if r := postForm(t, s, off, url.Values{"email": {"x@example.org"}}); r.Status != 404 {
		t.Errorf("POST to a form without a hosted page: %d", r.Status)
	}
	s.cli("form", "create", "--tenant", tn, "--form-id", "keyed")
	s.cli("key", "create", "--tenant", tn, "--publishable", "--forms", "keyed", "--origins", "https://a.example")
	if r := call(t, s, "GET", "/f/"+tn+"/keyed", "", nil); r.Status != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "frame-ancestors 'self' https://a.example") {
		t.Errorf("a form a publishable key names: %d %q", r.Status, r.Header.Get("Content-Security-Policy"))
	}

	var postTo func(page, sid, addr string) response
	post := func(sid, addr string) response { return postTo(page, sid, addr) }
	postTo = func(page, sid, addr string) response {
		return call(t, s, "POST", page, "", url.Values{"submission_id": {sid}, "email": {sid + "@example.org"}, "consent_to_general_contact_email": {"on"}}.Encode(),
			"Content-Type: application/x-www-form-urlencoded", "X-Forwarded-For: "+addr)
	}
	if r := postTo("/f/"+tn+"/strict", "nojs1", "192.0.2.1"); r.Status != 400 || !strings.Contains(string(r.Body), "JavaScript") {
		t.Errorf("no challenge, no fallback: %d %s", r.Status, r.Body)
	}
	if r := call(t, s, "GET", "/api/v1/forms/submissions/"+ops.PublicSubmissionID("strict", "nojs1"), rd, nil); r.Status != 404 {
		t.Errorf("a refused post was stored: %d", r.Status)
	}
	for i, want := range []int{200, 200, 200, 429} {
		sid := "v6-" + string(rune('a'+i))
		// Four addresses of one /64: one client.
		r := post(sid, "2001:db8:7:7::"+string(rune('1'+i)))
		if r.Status != want {
			t.Errorf("unchallenged post %d from the /64: %d, want %d", i+1, r.Status, want)
		}
		if want == 200 {
			if rec := recordRead(t, s, rd, ops.PublicSubmissionID("petition", sid)); rec["unchallenged"] != true {
				t.Errorf("post %d not marked unchallenged: %v", i+1, rec)
			}
		}
	}
	if r := post("other-net", "2001:db8:7:8::1"); r.Status != 200 {
		t.Errorf("another /64: %d", r.Status)
	}
	// With the challenge, the limit does not apply and the record is not marked.
	v := url.Values{"submission_id": {"solved"}, "email": {"solved@example.org"}, "consent_to_general_contact_email": {"on"},
		"altcha": {pageChallenge(t, s, page)}}
	if r := call(t, s, "POST", page, "", v.Encode(), "Content-Type: application/x-www-form-urlencoded", "X-Forwarded-For: 2001:db8:7:7::9"); r.Status != 200 {
		t.Errorf("a solved post from the limited /64: %d", r.Status)
	}
	if rec := recordRead(t, s, rd, ops.PublicSubmissionID("petition", "solved")); rec["unchallenged"] != nil {
		t.Errorf("a solved post is marked unchallenged: %v", rec)
	}
}

// TestPublicIDsNeverBlockSecretKey: a browser that posts first under the id the tenant's own
// integration will use (submission-id squatting) does not stop the real record: the secret
// key's submission is stored with its own data, and the person's consent reads from it.
func TestPublicIDsNeverBlockSecretKey(t *testing.T) {
	t.Parallel()
	p := newPublishableSetup(t)
	squat := webSub("crm-000001", "email", "squatter@example.org", "altcha", p.solved(t, "petition", 40),
		"consent_ip_address", "203.0.113.99", "consent_timestamp", "2001-01-01T00:00:00Z", "consent_source", "paper",
		"consent_to_general_contact_deadline_interval", "99y")
	r := call(t, p.s, "POST", submitPath, p.pk, squat, from(goodOrigin, 40)...)
	if r.Status != 200 || r.Header.Get("X-Submission-Id") != ops.PublicSubmissionID("petition", "crm-000001") {
		t.Fatalf("public post: %d %q", r.Status, r.Header.Get("X-Submission-Id"))
	}
	pub := recordReadRaw(t, p.s, p.rd, r.Header.Get("X-Submission-Id"))
	for _, forged := range []string{"203.0.113.99", "2001-01-01", `"paper"`, "2125-", "2124-"} {
		if strings.Contains(string(pub), forged) {
			t.Errorf("the public record keeps the browser's %s: %s", forged, pub)
		}
	}
	k := p.s.key(p.tenant, "submissions:write")
	real := webSub("crm-000001", "email", "jane@example.org")
	if r := call(t, p.s, "POST", submitPath, k, real); r.Status != 200 || r.Header.Get("X-Submission-Id") != "crm-000001" {
		t.Fatalf("secret key: %d %q", r.Status, r.Header.Get("X-Submission-Id"))
	}
	if got := str(recordRead(t, p.s, p.rd, "crm-000001"), "contact.email"); got != "jane@example.org" {
		t.Errorf("the secret key's record holds %q", got)
	}
	cons := call(t, p.s, "GET", "/api/v1/consents?email=jane@example.org", p.rd, nil)
	if !strings.Contains(string(cons.Body), `"email":"granted"`) {
		t.Errorf("Jane's consent: %s", cons.Body)
	}
}

// TestLinkBaseDefault: without CONSENTFORMS_PUBLIC_URL the links point at
// http://localhost:<port> of the listen address, and the start says so in a warning.
func TestLinkBaseDefault(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if !strings.HasPrefix(s.LinkBase, "http://localhost:") {
		t.Fatalf("link base %q", s.LinkBase)
	}
	eventually(t, func() bool { return strings.Contains(s.stderr.String(), "CONSENTFORMS_PUBLIC_URL is not set") })
	if !strings.Contains(s.stderr.String(), s.LinkBase) {
		t.Errorf("the warning does not name the link base %s:\n%s", s.LinkBase, s.stderr.String())
	}
	c := startServer(t, "CONSENTFORMS_PUBLIC_URL=https://forms.example.org/")
	if strings.Contains(c.stderr.String(), "CONSENTFORMS_PUBLIC_URL is not set") {
		t.Error("a configured public URL still warned")
	}
}

// eventually waits up to 20 s for ok: a change made from the command line reaches the
// server's caches within their bound on staleness (15 s).
func eventually(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
