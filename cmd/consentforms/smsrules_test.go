package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// The number tenant A sends from (the To of the SMS testdata payloads), and tenant B's.
const (
	numberA = "+14155550100"
	numberB = "+14155550199"
)

// cliExit runs a command line on the test server's data as main would: its exit status and
// stderr.
func cliExit(s *testServer, args ...string) (int, string) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, s.getenv, &out, &errOut); err != nil {
		return exitCode(err, &errOut), errOut.String()
	}
	return 0, errOut.String()
}

// smsText is a Twilio inbound message from the texter to the number to, without Twilio's own
// OptOutType: the service's keyword rule alone decides.
func smsText(sid, to, body string) url.Values {
	return url.Values{"MessageSid": {sid}, "SmsSid": {sid}, "AccountSid": {"ACshared"}, "From": {texter}, "To": {to},
		"Body": {body}, "NumMedia": {"0"}, "ApiVersion": {"2010-04-01"}}
}

// twoTenantsSharing are tenants A and B, each with the texter subscribed, whose Twilio and
// Telnyx secrets are the same (one provider account serving both).
func twoTenantsSharing(t *testing.T, s *testServer) (a, ka, b, kb string, telnyx func(tenant string, body []byte) response) {
	t.Helper()
	a, b = s.tenant(), s.tenant()
	ka, kb = s.key(a, "all"), s.key(b, "all")
	subscriber(t, s, ka, "alice", "alice@example.org", texter)
	subscriber(t, s, kb, "alice", "alice@example.org", texter)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	for _, tn := range []string{a, b} {
		s.cli("tenant", "set-sms-secret", "--tenant", tn, "--provider", "twilio", "--secret", "shared-token")
		s.cli("tenant", "set-sms-secret", "--tenant", tn, "--provider", "telnyx", "--secret", base64.StdEncoding.EncodeToString(pub))
	}
	telnyx = func(tenant string, body []byte) response {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		sig := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(ts+"|"+string(body))))
		return call(t, s, "POST", unsubPath("telnyx")+"?tenant="+url.QueryEscape(tenant), "", body, jsonType,
			"telnyx-signature-ed25519: "+sig, "telnyx-timestamp: "+ts)
	}
	return a, ka, b, kb, telnyx
}

// TestSMSReaddressedToAnotherTenant: tenants A and B share a provider account, so a message
// signed for A verifies at B's URL too (the signature does not cover ?tenant=). Once B has
// registered its sending numbers, A's STOP re-addressed to B — Twilio's and Telnyx's — changes
// nothing at B, while it applies at A, which registered none; a STOP sent to B's number applies
// at B. add-sms-number prints one object, says when a number was there already, and refuses
// a missing flag (exit 2, usage) and a number that is none (exit 1).
func TestSMSReaddressedToAnotherTenant(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, ka, b, kb, telnyx := twoTenantsSharing(t, s)

	out := s.cli("tenant", "add-sms-number", "--tenant", b, "--number", "+1 (415) 555-0199")
	if len(out) != 3 || out["tenant"] != b || out["number"] != numberB || out["added"] != true {
		t.Fatalf("add-sms-number printed %v", out)
	}
	if out := s.cli("tenant", "add-sms-number", "--tenant", b, "--number", numberB); out["added"] != false {
		t.Errorf("adding the number again printed %v", out)
	}
	if code, stderr := cliExit(s, "tenant", "add-sms-number", "--tenant", b); code != 2 || !strings.Contains(stderr, "--number") || !strings.Contains(stderr, "Usage: consentforms tenant add-sms-number") {
		t.Errorf("without --number: exit %d, stderr %q; want 2 with the usage", code, stderr)
	}
	if code, stderr := cliExit(s, "tenant", "add-sms-number", "--tenant", b, "--number", "not-a-number"); code != 1 || !strings.Contains(stderr, "--number") {
		t.Errorf("an invalid number: exit %d, stderr %q; want 1 naming --number", code, stderr)
	}
	if code, _ := cliExit(s, "tenant", "add-sms-number", "--tenant", "no-such-tenant", "--number", numberB); code != 1 {
		t.Errorf("an unknown tenant: exit %d, want 1", code)
	}

	// A's STOP (sent to A's number), posted to B's URL, correctly signed.
	stop := twilioForm(t, "twilio_stop.form")
	if stop.Get("To") != numberA {
		t.Fatalf("the testdata STOP is sent to %s", stop.Get("To"))
	}
	assertTwiML(t, twilioPost(t, s, b, "shared-token", stop))
	telnyxStop := providerPayload(t, "telnyx_received.json")
	if r := telnyx(b, telnyxStop); r.Status != 200 || !strings.Contains(str(r.JSON(t), "message"), "0 revoked") {
		t.Fatalf("Telnyx STOP re-addressed to B: %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, kb, "alice")
	if n := len(auditOf(t, s, b, tenants.ActionConsentRevoked)); n != 0 {
		t.Errorf("B's audit log has %d revocations", n)
	}

	// At A, which registered no number, the same messages apply (each id once).
	assertTwiML(t, twilioPost(t, s, a, "shared-token", stop))
	assertPhoneRevoked(t, s, ka, "alice")
	assertUnsubscribed(t, telnyx(a, telnyxStop), 0)

	// A STOP sent to B's own number applies at B.
	assertTwiML(t, twilioPost(t, s, b, "shared-token", smsText("SMtoB", numberB, "STOP")))
	assertPhoneRevoked(t, s, kb, "alice")
}

// TestSMSMessageOnceAcrossTenants: tenants sharing a provider account and registering no
// numbers apply every signed message, but a provider message id applied at one tenant's URL
// changes nothing at another's.
func TestSMSMessageOnceAcrossTenants(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, ka, b, kb, telnyx := twoTenantsSharing(t, s)
	stop := twilioForm(t, "twilio_stop.form")
	assertTwiML(t, twilioPost(t, s, a, "shared-token", stop))
	assertPhoneRevoked(t, s, ka, "alice")
	assertTwiML(t, twilioPost(t, s, b, "shared-token", stop))
	assertUntouched(t, s, kb, "alice")

	telnyxStop := providerPayload(t, "telnyx_received.json")
	subscriber(t, s, kb, "alice-2", "", texter)
	assertUnsubscribed(t, telnyx(b, telnyxStop), 2) // B's alice and alice-2: the first time this id is seen
	assertUnsubscribed(t, telnyx(a, telnyxStop), 0)
	if n := len(auditOf(t, s, a, tenants.ActionConsentRevoked)); n != 1 {
		t.Errorf("A's audit log has %d revocations, want the Twilio one alone", n)
	}
}

// TestSMSKeywordRule: through the server, "stop all", "STOP." (industry keywords, folded),
// "Stopp" and "ABMELDEN" (German: the tenant's default country is DE) and a word the tenant
// added each revoke general contact by phone; "Stopp" at a tenant of no German does not.
func TestSMSKeywordRule(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	k := s.key(tn, "all")
	if out := s.cli("tenant", "update", "--tenant", tn, "--default-country", "DE", "--sms-stop-words", "Nicht mehr!, alto"); out["defaultCountry"] != "DE" ||
		toJSON(out["smsStopWords"]) != `["nicht mehr","alto"]` {
		t.Fatalf("tenant update printed %v", out)
	}
	if code, stderr := cliExit(s, "tenant", "update", "--tenant", tn, "--sms-stop-words", "start"); code != 1 || !strings.Contains(stderr, "--sms-stop-words") {
		t.Errorf("START as a stop word: exit %d, stderr %q", code, stderr)
	}
	s.cli("tenant", "set-sms-secret", "--tenant", tn, "--provider", "twilio", "--secret", "tok")
	english := s.tenant()
	ke := s.key(english, "all")
	s.cli("tenant", "set-sms-secret", "--tenant", english, "--provider", "twilio", "--secret", "tok")
	subscriber(t, s, ke, "alice", "alice@example.org", texter)
	assertTwiML(t, twilioPost(t, s, english, "tok", smsText("SMen", numberA, "Stopp")))
	assertUntouched(t, s, ke, "alice")

	for i, text := range []string{"stop all", "STOP.", "Stopp", "ABMELDEN", "nicht  MEHR", "Alto!"} {
		id := "p" + strconv.Itoa(i)
		subscriber(t, s, k, id, "", texter)
		assertTwiML(t, twilioPost(t, s, tn, "tok", smsText("SMkw"+strconv.Itoa(i), numberA, text)))
		if sub := getSubmission(t, s, k, id); status(sub, "generalContactPhone") != "revoked" || status(sub, "primaryPurpose") != "granted" {
			t.Errorf("after %q: %v, want general contact by phone revoked, primary purpose kept", text, at(sub, "consents"))
		}
	}
	// A reply still changes nothing.
	subscriber(t, s, k, "after", "", texter)
	assertTwiML(t, twilioPost(t, s, tn, "tok", smsText("SMreply", numberA, "stop sending me the newsletter please")))
	if status(getSubmission(t, s, k, "after"), "generalContactPhone") != "granted" {
		t.Error("a reply revoked consent")
	}
}

// TestSMSStartAudited: START grants nothing (consent revoked by an earlier STOP stays revoked,
// a record never granted stays so) and writes one sms.opt_in_keyword entry, actor the
// provider, the sender by keyed hash only; a retry of it writes no second entry.
func TestSMSStartAudited(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	k := s.key(tn, "all")
	subscriber(t, s, k, "alice", "alice@example.org", texter)
	s.cli("tenant", "set-sms-secret", "--tenant", tn, "--provider", "twilio", "--secret", "tok")
	assertTwiML(t, twilioPost(t, s, tn, "tok", smsText("SMstop", numberA, "STOP")))
	assertPhoneRevoked(t, s, k, "alice")

	start := twilioForm(t, "twilio_start.form")
	assertTwiML(t, twilioPost(t, s, tn, "tok", start))
	assertTwiML(t, twilioPost(t, s, tn, "tok", start))
	assertTwiML(t, twilioPost(t, s, tn, "tok", smsText("SMunstop", numberA, "unstop")))
	assertPhoneRevoked(t, s, k, "alice")
	entries := auditOf(t, s, tn, tenants.ActionSMSOptInKeyword)
	if len(entries) != 2 {
		t.Fatalf("%d sms.opt_in_keyword entries, want 2 (START once, UNSTOP): %+v", len(entries), entries)
	}
	revoked := auditOf(t, s, tn, tenants.ActionConsentRevoked)
	for _, e := range entries {
		if e.Actor != "twilio:"+tn || e.Subject == "" || len(revoked) != 1 || e.Subject != revoked[0].Subject || len(e.RecordIDs) != 0 {
			t.Errorf("opt-in entry %+v; want actor twilio:%s and the STOP's subject hash, no records", e, tn)
		}
		if j := toJSON(e); strings.Contains(j, "4155552671") || strings.Contains(j, "alice") {
			t.Errorf("the entry holds the number or the person: %s", j)
		}
	}
	if n := len(auditOf(t, s, tn, tenants.ActionConsentGranted)); n != 1 {
		t.Errorf("%d consent.granted entries, want the submission's alone", n)
	}
}

// TestSMSSettingsAdmin: a tenant admin registers and removes sending numbers and sets stop
// words on the Webhook credentials page; each change is audited under its own action, never
// holding the number or the words; a number that is none is refused beside its field.
func TestSMSSettingsAdmin(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	k := s.key(tn, "all")
	subscriber(t, s, k, "alice", "alice@example.org", texter)
	s.cli("tenant", "set-sms-secret", "--tenant", tn, "--provider", "twilio", "--secret", "tok")
	s.cli("staff", "create", "--email", "admin@example.com", "--password", "admin-password-1", "--role", "tenant_admin", "--tenant", tn)
	a := newAdminClient(t, s)
	a.signIn("admin@example.com", "admin-password-1")
	_, page := a.get("/admin/webhooks")
	if !strings.Contains(page, `data-testid="sms-numbers-empty"`) {
		t.Fatal("the page does not say that no number is registered")
	}
	if st, body, _ := a.post("/admin/webhooks/sms-numbers", url.Values{"number": {"12"}}); st != 422 || !strings.Contains(body, "international form") {
		t.Errorf("an invalid number: %d", st)
	}
	a.get("/admin/webhooks")
	if st, _, loc := a.post("/admin/webhooks/sms-numbers", url.Values{"number": {numberB}}); st != 303 || loc != "/admin/webhooks" {
		t.Fatalf("add: %d %s", st, loc)
	}
	_, page = a.get("/admin/webhooks")
	if !strings.Contains(page, `data-testid="sms-number" data-number="`+numberB+`"`) {
		t.Fatal("the registered number is not listed")
	}
	// The STOP of the testdata is sent to another number: it no longer applies here.
	assertTwiML(t, twilioPost(t, s, tn, "tok", twilioForm(t, "twilio_stop.form")))
	assertUntouched(t, s, k, "alice")

	if st, _, _ := a.post("/admin/webhooks/sms-stop-words", url.Values{"sms_stop_words": {"Alto, nicht mehr"}}); st != 303 {
		t.Fatalf("stop words: %d", st)
	}
	_, page = a.get("/admin/webhooks")
	if !strings.Contains(page, `value="alto, nicht mehr"`) {
		t.Error("the stop words are not shown as saved")
	}
	assertTwiML(t, twilioPost(t, s, tn, "tok", smsText("SMalto", numberB, "ALTO")))
	assertPhoneRevoked(t, s, k, "alice")

	if st, _, _ := a.post("/admin/webhooks/sms-numbers/remove", url.Values{"number": {numberB}}); st != 303 {
		t.Fatalf("remove: %d", st)
	}
	if _, page = a.get("/admin/webhooks"); !strings.Contains(page, `data-testid="sms-numbers-empty"`) {
		t.Error("the removed number is still listed")
	}
	_, audit := a.get("/admin/audit")
	for _, label := range []string{"SMS sending number added", "SMS sending number removed", "SMS stop words changed"} {
		if !strings.Contains(audit, label) {
			t.Errorf("the audit log does not show %q", label)
		}
	}
	for _, action := range []string{tenants.ActionSMSNumberAdded, tenants.ActionSMSNumberRemoved, tenants.ActionSMSStopWords} {
		for _, e := range auditOf(t, s, tn, action) {
			if j := toJSON(e); strings.Contains(j, "4155550199") || strings.Contains(j, "alto") {
				t.Errorf("%s entry holds the number or the words: %s", action, j)
			}
		}
	}
	for _, e := range auditOf(t, s, tn, tenants.ActionWebhookChanged) {
		if e.Detail != "twilio sms secret set" {
			t.Errorf("an SMS setting was audited as a webhook change: %+v", e)
		}
	}
}
