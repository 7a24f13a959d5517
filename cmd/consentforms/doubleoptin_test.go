package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// publicURLEnv configures the links' base (CONSENTFORMS_PUBLIC_URL): servers that share it
// give the same links.
const publicURLEnv = "CONSENTFORMS_PUBLIC_URL=https://forms.example.org"

// doiSubmission is a submission granting primary purpose and general contact by e-mail and
// phone, with a deadline on general contact.
func doiSubmission(id, email string) map[string]any {
	return map[string]any{"form_id": "petition", "submission_id": id, "email": email, "phone_number": "+447700900123",
		"consent_to_primary_purpose": true, "consent_to_general_contact_email": true, "consent_to_general_contact_phone": true,
		"consent_to_general_contact_deadline_interval": "1y", "consent_to_primary_purpose_deadline_interval": "2y"}
}

// recordRead is GET /api/v1/forms/submissions/{id}, decoded.
func recordRead(t *testing.T, s *testServer, key, id string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/api/v1/forms/submissions/"+id, key, nil)
	if r.Status != 200 {
		t.Fatalf("record read %s = %d %s", id, r.Status, r.Body)
	}
	return r.JSON(t)
}

// consentOf is one consent of a record read.
func consentOf(rec map[string]any, name string) map[string]any {
	return rec["consents"].(map[string]any)[name].(map[string]any)
}

// pathOf is the path of a link the test server made: absolute, on its link base.
func pathOf(t *testing.T, s *testServer, u any) string {
	t.Helper()
	str, _ := u.(string)
	if !strings.HasPrefix(str, s.LinkBase+"/") {
		t.Fatalf("link %q is not an absolute URL of %s", str, s.LinkBase)
	}
	return strings.TrimPrefix(str, s.LinkBase)
}

// assertPersonPage checks what every page under /c/ and /w/ promises: no cookie, the strict
// CSP, HTML.
func assertPersonPage(t *testing.T, r response, status int) {
	t.Helper()
	if r.Status != status {
		t.Errorf("page answered %d; want %d: %s", r.Status, status, r.Body)
	}
	if r.Header.Get("Set-Cookie") != "" {
		t.Errorf("page set a cookie: %q", r.Header.Get("Set-Cookie"))
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP = %q", csp)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("Content-Type = %q", r.Header.Get("Content-Type"))
	}
}

// TestDoubleOptInConfirmation: on a form with double opt-in for e-mail, the e-mail consent
// reads pending in the record read (with its confirmation URL, also sent in
// consent.confirmation_requested) and not granted everywhere else; GET of the link changes
// nothing; POST confirms with its proof, keeping the deadline; the link then answers 410.
func TestDoubleOptInConfirmation(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, false)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--language", "de")
	s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL+"/hooks", "--events", "consent.confirmation_requested,consent.granted")
	if r := call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("s1", "Ada@Example.org")); r.Status != 200 {
		t.Fatalf("submission = %d %s", r.Status, r.Body)
	}
	rec := recordRead(t, s, k, "s1")
	email, phone := consentOf(rec, "generalContactEmail"), consentOf(rec, "generalContactPhone")
	if email["status"] != "pending" || email["grantedAt"] != nil || phone["status"] != "granted" || phone["confirmationUrl"] != nil {
		t.Fatalf("record read consents = %v; want e-mail pending, phone granted", rec["consents"])
	}
	deadline := email["deadline"]
	confirm := pathOf(t, s, email["confirmationUrl"])
	withdraw := pathOf(t, s, rec["withdrawUrl"])
	if !strings.HasPrefix(confirm, "/c/") || !strings.HasPrefix(withdraw, "/w/") {
		t.Fatalf("links %q, %q", confirm, withdraw)
	}
	for _, link := range []string{confirm, withdraw} {
		if strings.Contains(strings.ToLower(decodeToken(link)), "example.org") || strings.Contains(decodeToken(link), "7700900123") {
			t.Errorf("token %q holds personal data", decodeToken(link))
		}
	}
	assertEmailNotGranted(t, s, k, "ada@example.org")

	// The event carries the same URL and no personal data.
	ev := awaitEvent(t, rcv, "consent.confirmation_requested")
	var body struct {
		Type string
		Data struct {
			RecordID, Consent, ConfirmationURL, WithdrawURL string
		}
	}
	if err := json.Unmarshal(ev.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != "consent.confirmation_requested" || body.Data.RecordID != "s1" || body.Data.Consent != "generalContactEmail" ||
		body.Data.ConfirmationURL != email["confirmationUrl"] || body.Data.WithdrawURL != rec["withdrawUrl"] {
		t.Errorf("event = %s", ev.body)
	}
	if strings.Contains(strings.ToLower(string(ev.body)), "ada@") {
		t.Errorf("event holds the address: %s", ev.body)
	}

	// GET shows one button, in the form's language, and changes nothing (link scanners).
	for range 2 {
		r := call(t, s, "GET", confirm, "", nil)
		assertPersonPage(t, r, 200)
		if !strings.Contains(string(r.Body), `lang="de"`) || !strings.Contains(string(r.Body), `method="post"`) || strings.Contains(string(r.Body), "<script") {
			t.Errorf("confirmation page = %s", r.Body)
		}
	}
	if got := consentOf(recordRead(t, s, k, "s1"), "generalContactEmail")["status"]; got != "pending" {
		t.Fatalf("after GET the consent reads %v; want still pending", got)
	}

	r := call(t, s, "POST", confirm, "", nil, "User-Agent: DOI-Test/1.0", "Content-Type: application/x-www-form-urlencoded")
	assertPersonPage(t, r, 200)
	if !strings.Contains(string(r.Body), "bestätigt") {
		t.Errorf("confirmed page = %s", r.Body)
	}
	email = consentOf(recordRead(t, s, k, "s1"), "generalContactEmail")
	if email["status"] != "granted" || email["grantedAt"] == nil || email["confirmedAt"] == nil || email["deadline"] != deadline || email["confirmationUrl"] != nil {
		t.Errorf("after confirmation = %v; want granted, confirmed, deadline %v kept", email, deadline)
	}
	if got := personConsents(t, s, k, "ada@example.org")["generalContact"].(map[string]any)["email"]; got != "granted" {
		t.Errorf("consent read after confirmation = %v; want granted", got)
	}
	granted := awaitEvent(t, rcv, "generalContactEmail confirmed")
	if !strings.Contains(string(granted.body), `"withdrawUrl":"`) {
		t.Errorf("consent.granted of the confirmation = %s; want its withdrawUrl", granted.body)
	}

	assertSubjectAudit(t, s, tn, "consent.granted", "generalContactEmail confirmed")

	// The link is spent: both methods answer 410 and change nothing.
	assertPersonPage(t, call(t, s, "POST", confirm, "", nil), http.StatusGone)
	assertPersonPage(t, call(t, s, "GET", confirm, "", nil), http.StatusGone)

	// A later submission of the same person, pending again, never downgrades the confirmation.
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("s2", "ada@example.org"))
	if got := consentOf(recordRead(t, s, k, "s2"), "generalContactEmail")["status"]; got != "pending" {
		t.Errorf("second submission reads %v; want pending", got)
	}
	if got := personConsents(t, s, k, "ada@example.org")["generalContact"].(map[string]any)["email"]; got != "granted" {
		t.Errorf("consent read after a later pending submission = %v; want still granted", got)
	}
}

// awaitEvent waits for the delivery whose body holds what: an event type, or for a
// confirmation's consent.granted "generalContactEmail confirmed" (its consent named).
func awaitEvent(t *testing.T, rcv *receiver, what string) delivery {
	t.Helper()
	find := func(r *receiver) (delivery, bool) {
		for _, d := range r.got {
			b := string(d.body)
			if strings.Contains(b, `"type":"`+what+`"`) ||
				(what == "generalContactEmail confirmed" && strings.Contains(b, `"type":"consent.granted"`) && strings.Contains(b, `"consent":"generalContactEmail"`)) {
				return d, true
			}
		}
		return delivery{}, false
	}
	rcv.await(t, what, func(r *receiver) bool { _, ok := find(r); return ok })
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	d, _ := find(rcv)
	return d
}

// assertSubjectAudit: the tenant's audit log holds one entry of action by the person
// themself (actor subject) with detail, naming them by a keyed hash only.
func assertSubjectAudit(t *testing.T, s *testServer, tenant, action, detail string) {
	t.Helper()
	var found int
	for _, e := range auditOf(t, s, tenant, action) {
		if e.Actor == "subject" {
			found++
			if e.Detail != detail || e.Subject == "" || strings.Contains(toJSON(e), "@example.org") {
				t.Errorf("audit entry = %+v; want detail %q and a keyed subject", e, detail)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d %s entries by the subject; want 1", found, action)
	}
}

// decodeToken is the readable part of a link's token.
func decodeToken(path string) string {
	tok := path[strings.LastIndex(path, "/")+1:]
	body, _, _ := strings.Cut(tok, ".")
	b, _ := base64.RawURLEncoding.DecodeString(body)
	return string(b)
}

func personConsents(t *testing.T, s *testServer, key, email string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/api/v1/consents?email="+email, key, nil)
	if r.Status != 200 {
		t.Fatalf("consent read = %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

// assertEmailNotGranted: the person's e-mail consent reads not_granted in the consent read,
// in the aggregate and in each submission, and in the access export.
func assertEmailNotGranted(t *testing.T, s *testServer, key, email string) {
	t.Helper()
	p := personConsents(t, s, key, email)
	if got := p["generalContact"].(map[string]any)["email"]; got != "not_granted" {
		t.Errorf("aggregate e-mail status = %v; want not_granted", got)
	}
	for _, sub := range p["submissions"].([]any) {
		if got := sub.(map[string]any)["consents"].(map[string]any)["generalContactEmail"].(map[string]any)["status"]; got != "not_granted" {
			t.Errorf("submission e-mail status = %v; want not_granted", got)
		}
	}
	r := call(t, s, "POST", "/api/v1/gdpr/export", key, map[string]any{"email": email})
	if r.Status != 200 || strings.Contains(string(r.Body), `"pending"`) || strings.Contains(string(r.Body), "/c/") {
		t.Errorf("export = %d %s; want no pending consent and no confirmation link", r.Status, r.Body)
	}
}

// TestDoubleOptInRefusedLinks: a tampered token, another tenant's token re-addressed and a
// lapsed link are refused with a page and nothing changed.
func TestDoubleOptInRefusedLinks(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := openTenant(s), openTenant(s)
	ka, kb := s.key(a, "all"), s.key(b, "all")
	for _, tn := range []string{a, b} {
		s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email,phone", "--confirm-within", "2s")
	}
	call(t, s, "POST", "/api/v1/forms/accept-submission", ka, doiSubmission("s1", "a@example.org"))
	call(t, s, "POST", "/api/v1/forms/accept-submission", kb, doiSubmission("s1", "b@example.org"))
	confirmB := pathOf(t, s, consentOf(recordRead(t, s, kb, "s1"), "generalContactEmail")["confirmationUrl"])

	// B's token, re-addressed to tenant A (same record id), keeps B's signature: refused.
	tok := strings.TrimPrefix(confirmB, "/c/")
	body, sig, _ := strings.Cut(tok, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	forged := "/c/" + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), b, a, 1))) + "." + sig
	tampered := confirmB[:len(confirmB)-2] + flip(confirmB[len(confirmB)-2:])
	for _, p := range []string{forged, tampered, "/c/nonsense", "/w/nonsense", "/w/" + tok} {
		assertPersonPage(t, call(t, s, "GET", p, "", nil), http.StatusNotFound)
		assertPersonPage(t, call(t, s, "POST", p, "", nil), http.StatusNotFound)
	}
	for tn, k := range map[string]string{a: ka, b: kb} {
		if got := consentOf(recordRead(t, s, k, "s1"), "generalContactEmail")["status"]; got != "pending" {
			t.Errorf("tenant %s's consent = %v; want still pending", tn, got)
		}
	}

	// After the confirmation period the link lapses and the consent reads not granted.
	time.Sleep(2100 * time.Millisecond)
	assertPersonPage(t, call(t, s, "GET", confirmB, "", nil), http.StatusGone)
	assertPersonPage(t, call(t, s, "POST", confirmB, "", nil), http.StatusGone)
	email := consentOf(recordRead(t, s, kb, "s1"), "generalContactEmail")
	if email["status"] != "not_granted" || email["confirmationUrl"] != nil {
		t.Errorf("lapsed consent = %v; want not_granted without a link", email)
	}
}

// flip changes the last characters of a token.
func flip(s string) string {
	if s == "AA" {
		return "AB"
	}
	return "AA"
}

// TestWithdrawalLink: every record whose general contact was given carries withdrawUrl; GET
// shows the channels, POST withdraws general contact on the person's own records (never on
// a record that only mentions them), audited with actor subject; after erasure the link
// still answers, with nothing left to withdraw.
func TestWithdrawalLink(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	subscriber(t, s, k, "own1", "eve@example.org", "+447700900123")
	subscriber(t, s, k, "own2", "eve@example.org", "")
	other := doiSubmission("other", "bob@example.org")
	other["referred_friend"] = "eve@example.org"
	delete(other, "phone_number")
	other["consent_to_general_contact_phone"] = false
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, other)
	none := map[string]any{"form_id": "petition", "submission_id": "none", "email": "zed@example.org", "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "1y"}
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, none)
	if u := recordRead(t, s, k, "none")["withdrawUrl"]; u != nil {
		t.Errorf("a record without general contact has withdrawUrl %v", u)
	}
	w := pathOf(t, s, recordRead(t, s, k, "own1")["withdrawUrl"])

	r := call(t, s, "GET", w, "", nil)
	assertPersonPage(t, r, 200)
	page := string(r.Body)
	if !strings.Contains(page, "e-mail") || !strings.Contains(page, "phone") || strings.Contains(page, "eve@") || !strings.Contains(page, `method="post"`) {
		t.Errorf("withdrawal page = %s", page)
	}
	if got := personConsents(t, s, k, "eve@example.org")["generalContact"].(map[string]any)["email"]; got != "granted" {
		t.Fatalf("GET changed the consent: %v", got)
	}

	assertPersonPage(t, call(t, s, "POST", w, "", nil), 200)
	for _, id := range []string{"own1", "own2"} {
		rec := recordRead(t, s, k, id)
		if consentOf(rec, "generalContactEmail")["status"] != "revoked" || consentOf(rec, "primaryPurpose")["status"] != "granted" {
			t.Errorf("%s after withdrawal = %v; want general contact revoked, primary purpose kept", id, rec["consents"])
		}
	}
	if got := consentOf(recordRead(t, s, k, "other"), "generalContactEmail")["status"]; got != "granted" {
		t.Errorf("bob's consent = %v; want granted (not his withdrawal)", got)
	}
	assertSubjectAudit(t, s, tn, "consent.revoked", "generalContact via withdrawal")
	// The link opens the preference page: general contact gone, the petition's primary purpose
	// (kept) still offered on its own.
	r = call(t, s, "GET", w, "", nil)
	assertPersonPage(t, r, 200)
	if page := string(r.Body); strings.Contains(page, `data-testid="withdraw-channel"`) || !strings.Contains(page, `data-choice="form:petition"`) {
		t.Errorf("page after withdrawal = %s", r.Body)
	}

	// After erasure the link still answers: nothing left to withdraw.
	if r := call(t, s, "POST", "/api/v1/gdpr/search-and-anonymise", k, map[string]any{"email": "eve@example.org"}); r.Status != 200 {
		t.Fatalf("erasure = %d %s", r.Status, r.Body)
	}
	for _, m := range []string{"GET", "POST"} {
		r := call(t, s, m, w, "", nil)
		assertPersonPage(t, r, 200)
		if !strings.Contains(string(r.Body), `data-testid="withdraw-nothing"`) {
			t.Errorf("%s after erasure = %s", m, r.Body)
		}
	}
}
