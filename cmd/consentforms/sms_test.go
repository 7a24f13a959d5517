package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/golang-jwt/jwt/v5"
)

// The sender of the SMS testdata payloads, and another number.
const (
	texter    = "+14155552671"
	neighbour = "+14155550123"
)

// smsSetup is a tenant with a key, Alice (both general-contact consents, her number the
// texter's) and Bob (his own number, the texter's only in a custom field), and another tenant
// where the texter subscribed too.
func smsSetup(t *testing.T, s *testServer) (tenant, key, otherKey string) {
	t.Helper()
	tenant = s.tenant()
	key = s.key(tenant, "all")
	subscriber(t, s, key, "alice", "alice@example.org", texter)
	submit(t, s, key, map[string]any{"form_id": "petition", "submission_id": "bob", "email": "bob@example.org", "phone_number": neighbour,
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true, "referred_friend_phone": texter})
	other := s.tenant()
	otherKey = s.key(other, "all")
	subscriber(t, s, otherKey, "alice-elsewhere", "alice@example.org", texter)
	return tenant, key, otherKey
}

// assertPhoneRevoked requires general contact by phone revoked and the other two granted.
func assertPhoneRevoked(t *testing.T, s *testServer, key, id string) {
	t.Helper()
	sub := getSubmission(t, s, key, id)
	if status(sub, "generalContactPhone") != "revoked" {
		t.Errorf("%s phone: %v, want revoked", id, at(sub, "consents.generalContactPhone"))
	}
	for _, c := range []string{"primaryPurpose", "generalContactEmail"} {
		if status(sub, c) != "granted" {
			t.Errorf("%s %s: %v, want granted", id, c, at(sub, "consents."+c))
		}
	}
}

// twilioPost signs form as Twilio does for the URL the server was reached at.
func twilioPost(t *testing.T, s *testServer, tenant, token string, form url.Values) response {
	t.Helper()
	path := unsubPath("twilio") + "?tenant=" + url.QueryEscape(tenant)
	sig := unsubscribe.TwilioSignature(token, s.URL+path, form)
	return call(t, s, "POST", path, "", form.Encode(), formType, "X-Twilio-Signature: "+sig)
}

func twilioForm(t *testing.T, file string) url.Values {
	t.Helper()
	f, err := url.ParseQuery(string(providerPayload(t, file)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// assertTwiML requires Twilio's expected answer: 200 with an empty TwiML response.
func assertTwiML(t *testing.T, r response) {
	t.Helper()
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/xml") || !strings.Contains(string(r.Body), "<Response/>") {
		t.Fatalf("answer %d %q %s, want 200 text/xml <Response/>", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
}

// TestSMSTwilio: through the real server, Twilio's signed inbound STOP revokes general contact
// by phone on the texter's own records only; a bad signature is 401, changes nothing and shows
// in the diagnostics; START and a plain reply change nothing; a replay of the STOP after a new
// grant changes nothing; another tenant is untouched.
func TestSMSTwilio(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, otherKey := smsSetup(t, s)
	out := s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "twilio", "--secret", "auth-token-1")
	if len(out) != 3 || out["tenant"] != tenant || out["provider"] != "twilio" || out["set"] != true {
		t.Fatalf("set-sms-secret printed %v", out)
	}

	stop := twilioForm(t, "twilio_stop.form")
	path := unsubPath("twilio") + "?tenant=" + url.QueryEscape(tenant)
	for name, headers := range map[string][]string{
		"wrong token":   {formType, "X-Twilio-Signature: " + unsubscribe.TwilioSignature("auth-token-2", s.URL+path, stop)},
		"no signature":  {formType, "X-Twilio-Signature: "},
		"other URL":     {formType, "X-Twilio-Signature: " + unsubscribe.TwilioSignature("auth-token-1", s.URL+unsubPath("twilio"), stop)},
		"tampered body": {formType, "X-Twilio-Signature: " + unsubscribe.TwilioSignature("auth-token-1", s.URL+path, twilioForm(t, "twilio_reply.form"))},
	} {
		if r := call(t, s, "POST", path, "", stop.Encode(), headers...); r.Status != 401 || str(r.JSON(t), "error") != "Unauthorized" {
			t.Errorf("%s: %d %s, want 401 Unauthorized", name, r.Status, r.Body)
		}
	}
	assertUntouched(t, s, key, "alice")

	for _, file := range []string{"twilio_start.form", "twilio_reply.form"} {
		assertTwiML(t, twilioPost(t, s, tenant, "auth-token-1", twilioForm(t, file)))
	}
	help := twilioForm(t, "twilio_reply.form")
	help.Set("Body", "HELP")
	help.Set("MessageSid", "SMhelp")
	assertTwiML(t, twilioPost(t, s, tenant, "auth-token-1", help))
	assertUntouched(t, s, key, "alice")

	assertTwiML(t, twilioPost(t, s, tenant, "auth-token-1", stop))
	assertPhoneRevoked(t, s, key, "alice")
	assertUntouched(t, s, key, "bob")
	assertUntouched(t, s, otherKey, "alice-elsewhere")

	// Alice grants again on a new submission; Twilio retrying the old STOP changes nothing.
	subscriber(t, s, key, "alice-again", "alice@example.org", texter)
	assertTwiML(t, twilioPost(t, s, tenant, "auth-token-1", stop))
	assertUntouched(t, s, key, "alice-again")

	// The bearer key works on the path too, with Twilio's own body.
	stop.Set("MessageSid", "SMbearer")
	r := call(t, s, "POST", unsubPath("twilio"), key, stop.Encode(), formType)
	assertTwiML(t, r)
	assertPhoneRevoked(t, s, key, "alice-again")

	a := newAdminClient(t, s)
	s.cli("staff", "create", "--email", "admin@example.com", "--password", "admin-password-1", "--role", "tenant_admin", "--tenant", tenant)
	a.signIn("admin@example.com", "admin-password-1")
	// Two opt-outs applied (the signed STOP and the bearer one), each audited once with the
	// provider named; the replay wrote nothing.
	_, audit := a.get("/admin/audit")
	if n := strings.Count(audit, "by phone (via twilio)"); n != 2 {
		t.Errorf("the audit log shows %d phone revocations via twilio, want 2", n)
	}
	if strings.Contains(audit, texter) || strings.Contains(audit, "4155552671") {
		t.Error("the audit log shows the texter's number")
	}
	_, page := a.get("/admin/webhooks")
	twilio := providerSection(t, page, "twilio")
	if !strings.Contains(twilio, `data-reason="bad_signature"`) {
		t.Errorf("the Twilio section does not show the refused signature:\n%s", twilio)
	}
	if !strings.Contains(twilio, s.LinkBase+"/api/v1/twilio/unsubscribe?tenant="+url.QueryEscape(tenant)) {
		t.Errorf("the Twilio section does not give the URL to paste:\n%s", twilio)
	}
	if strings.Contains(page, "auth-token-1") || strings.Contains(page, texter) {
		t.Error("the page shows the auth token or the texter's number")
	}
}

// TestSMSTwilioPublicURL: behind a proxy Twilio signs the public URL; with
// CONSENTFORMS_PUBLIC_URL set the server verifies over it, and not over the address it was
// reached at.
func TestSMSTwilioPublicURL(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_PUBLIC_URL=https://forms.example.org/")
	tenant, key, _ := smsSetup(t, s)
	s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "twilio", "--secret", "tok")
	stop := twilioForm(t, "twilio_stop.form")
	path := unsubPath("twilio") + "?tenant=" + url.QueryEscape(tenant)
	if r := twilioPost(t, s, tenant, "tok", stop); r.Status != 401 {
		t.Fatalf("signed over the internal URL: %d %s, want 401", r.Status, r.Body)
	}
	r := call(t, s, "POST", path, "", stop.Encode(), formType,
		"X-Twilio-Signature: "+unsubscribe.TwilioSignature("tok", "https://forms.example.org"+path, stop))
	assertTwiML(t, r)
	assertPhoneRevoked(t, s, key, "alice")
}

// TestSMSTelnyxVonage: Telnyx's Ed25519-signed message.received and Vonage's signed inbound
// SMS (SMS API sig, and Messages API JWT) revoke general contact by phone; a stale or
// tampered one is 401 and changes nothing; HELP changes nothing.
func TestSMSTelnyxVonage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, otherKey := smsSetup(t, s)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "telnyx", "--secret", base64.StdEncoding.EncodeToString(pub))
	tpath := unsubPath("telnyx") + "?tenant=" + url.QueryEscape(tenant)
	telnyx := func(body []byte, at time.Time) response {
		ts := strconv.FormatInt(at.Unix(), 10)
		sig := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(ts+"|"+string(body))))
		return call(t, s, "POST", tpath, "", body, jsonType, "telnyx-signature-ed25519: "+sig, "telnyx-timestamp: "+ts)
	}
	stop := providerPayload(t, "telnyx_received.json")
	if r := telnyx(stop, time.Now().Add(-10*time.Minute)); r.Status != 401 {
		t.Fatalf("stale Telnyx delivery: %d %s", r.Status, r.Body)
	}
	if r := telnyx(providerPayload(t, "telnyx_help.json"), time.Now()); r.Status != 200 {
		t.Fatalf("Telnyx HELP: %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, key, "alice")
	assertUnsubscribed(t, telnyx(stop, time.Now()), 1)
	assertPhoneRevoked(t, s, key, "alice")
	assertUntouched(t, s, key, "bob")
	assertUntouched(t, s, otherKey, "alice-elsewhere")

	// Vonage: Bob texts QUIT.
	s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "vonage", "--secret", "vonage-secret")
	params := map[string]string{"msisdn": neighbour[1:], "to": "447700900000", "messageId": "0A00000001", "text": "quit", "type": "text",
		"keyword": "QUIT", "message-timestamp": "2024-04-09 14:20:47", "timestamp": strconv.FormatInt(time.Now().Unix(), 10), "nonce": "n-1"}
	vpath := unsubPath("vonage") + "?tenant=" + url.QueryEscape(tenant)
	signed := func(p map[string]string, secret string) url.Values {
		q := url.Values{}
		for k, v := range p {
			q.Set(k, v)
		}
		q.Set("sig", unsubscribe.VonageSignature(secret, unsubscribe.VonageMD5Hash, p))
		return q
	}
	if r := call(t, s, "GET", vpath+"&"+signed(params, "wrong-secret").Encode(), "", nil); r.Status != 401 {
		t.Fatalf("Vonage with a wrong secret: %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, key, "bob")
	if r := call(t, s, "GET", vpath+"&"+signed(params, "vonage-secret").Encode(), "", nil); r.Status != 200 {
		t.Fatalf("Vonage signed GET: %d %s", r.Status, r.Body)
	}
	sub := getSubmission(t, s, key, "bob")
	if status(sub, "generalContactPhone") != "revoked" || status(sub, "generalContactEmail") != "granted" {
		t.Errorf("bob after QUIT: %v", at(sub, "consents"))
	}

	// The Messages API: a JWT over the body's hash.
	subscriber(t, s, key, "carol", "", "+447700900001")
	body := providerPayload(t, "vonage_messages_inbound.json")
	sum := sha256.Sum256(body)
	tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iat": time.Now().Unix(), "jti": "j1", "iss": "Vonage",
		"payload_hash": hex.EncodeToString(sum[:])}).SignedString([]byte("vonage-secret"))
	if r := call(t, s, "POST", vpath, "", append(body, ' '), jsonType, "Authorization: Bearer "+tok); r.Status != 401 {
		t.Fatalf("Vonage JWT over another body: %d %s", r.Status, r.Body)
	}
	assertUnsubscribed(t, call(t, s, "POST", vpath, "", body, jsonType, "Authorization: Bearer "+tok), 1)
	if status(getSubmission(t, s, key, "carol"), "generalContactPhone") != "revoked" {
		t.Error("carol's phone consent is not revoked after her QUIT")
	}
}

// TestSMSNoSecret: a signed delivery for a tenant that set no secret is refused.
func TestSMSNoSecret(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, _ := smsSetup(t, s)
	if r := twilioPost(t, s, tenant, "anything", twilioForm(t, "twilio_stop.form")); r.Status != 401 {
		t.Fatalf("no secret set: %d %s", r.Status, r.Body)
	}
	if r := twilioPost(t, s, "no-such-tenant", "anything", twilioForm(t, "twilio_stop.form")); r.Status != 401 {
		t.Fatalf("unknown tenant: %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, key, "alice")
	for _, args := range [][]string{
		{"--tenant", tenant, "--provider", "signal", "--secret", "x"},
		{"--tenant", tenant, "--provider", "twilio", "--secret", ""},
		{"--tenant", tenant, "--provider", "telnyx", "--secret", "not-a-key"},
		{"--tenant", "no-such-tenant", "--provider", "twilio", "--secret", "x"},
	} {
		if _, err := s.cliErr(append([]string{"tenant", "set-sms-secret"}, args...)...); err == nil {
			t.Errorf("set-sms-secret %v succeeded", args)
		}
	}
}

// TestOutcomeFlags: a phone call task with do_not_call revokes general contact by phone for its
// number; a canvassing visit with do_not_contact revokes both general-contact consents of its
// identifiers; records that only mention them, and other tenants, are untouched.
func TestOutcomeFlags(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, otherKey := smsSetup(t, s)
	postRecord(t, s, key, "/api/v1/phone-call-tasks", map[string]any{"phone_number": texter, "campaign_id": "c1", "do_not_call": false})
	assertUntouched(t, s, key, "alice")
	if r := call(t, s, "POST", "/api/v1/phone-call-tasks", key, map[string]any{"phone_number": texter, "do_not_call": "yes"}); r.Status != 400 {
		t.Fatalf("do_not_call \"yes\": %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, key, "alice")
	postRecord(t, s, key, "/api/v1/phone-call-tasks", map[string]any{"phone_number": texter, "campaign_id": "c1", "outcome": "refused", "do_not_call": true})
	assertPhoneRevoked(t, s, key, "alice")
	assertUntouched(t, s, key, "bob")
	assertUntouched(t, s, otherKey, "alice-elsewhere")

	postRecord(t, s, key, "/api/v1/canvassing/submissions", map[string]any{"canvasser_id": "v1", "visited_at": "2026-11-20T10:00:00Z",
		"outcome": "not interested", "email": "bob@example.org", "do_not_contact": true})
	assertRevoked(t, s, key, "bob")
	assertUntouched(t, s, otherKey, "alice-elsewhere")

	s.cli("staff", "create", "--email", "admin@example.com", "--password", "admin-password-1", "--role", "tenant_admin", "--tenant", tenant)
	a := newAdminClient(t, s)
	a.signIn("admin@example.com", "admin-password-1")
	_, audit := a.get("/admin/audit")
	for _, want := range []string{"by phone (via phone_bank)", "and by phone (via canvassing)"} {
		if strings.Count(audit, want) != 1 {
			t.Errorf("the audit log shows %q %d times, want once", want, strings.Count(audit, want))
		}
	}
}

// TestSMSSecretAdmin: a tenant admin sets Twilio's auth token on the Webhook credentials page;
// the page then says only when it was set, never the token, and Twilio's signed STOP verifies
// with it. A Telnyx key that is not one is refused beside its provider.
func TestSMSSecretAdmin(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, _ := smsSetup(t, s)
	s.cli("staff", "create", "--email", "admin@example.com", "--password", "admin-password-1", "--role", "tenant_admin", "--tenant", tenant)
	a := newAdminClient(t, s)
	a.signIn("admin@example.com", "admin-password-1")
	_, page := a.get("/admin/webhooks")
	if sec := smsSecretSection(t, page, "twilio"); !strings.Contains(sec, "Not set") {
		t.Fatalf("before: %s", sec)
	}
	if st, _, loc := a.post("/admin/webhooks/sms-secret/twilio", url.Values{"secret": {"admin-token-1"}}); st != 303 || loc != "/admin/webhooks" {
		t.Fatalf("save: %d %s", st, loc)
	}
	_, page = a.get("/admin/webhooks")
	if sec := smsSecretSection(t, page, "twilio"); !strings.Contains(sec, "Set on "+time.Now().UTC().Format("2006-01-02")) {
		t.Errorf("after: %s", sec)
	}
	if strings.Contains(page, "admin-token-1") {
		t.Error("the page shows the secret")
	}
	st, body, _ := a.post("/admin/webhooks/sms-secret/telnyx", url.Values{"secret": {"not a key"}})
	if st != 422 || !strings.Contains(smsSecretSection(t, body, "telnyx"), "32 bytes in base64") {
		t.Errorf("bad Telnyx key: %d %s", st, smsSecretSection(t, body, "telnyx"))
	}
	assertTwiML(t, twilioPost(t, s, tenant, "admin-token-1", twilioForm(t, "twilio_stop.form")))
	assertPhoneRevoked(t, s, key, "alice")

	// Send test of each SMS provider: a STOP from a number nobody has, read and recorded.
	for _, p := range []string{"twilio", "telnyx", "vonage"} {
		a.get("/admin/webhooks")
		if st, _, loc := a.post("/admin/webhooks/test/"+p, nil); st != 303 || loc != "/admin/webhooks" {
			t.Fatalf("send test %s: %d %s", p, st, loc)
		}
		_, page := a.get("/admin/webhooks")
		if !strings.Contains(page, "1 event(s) read, 0 unsubscribe(s) applied") {
			t.Errorf("send test %s: no result shown", p)
		}
		if !strings.Contains(providerSection(t, page, p), "1 event(s), 0 unsubscribe(s) applied") {
			t.Errorf("send test %s: not recorded as a delivery:\n%s", p, providerSection(t, page, p))
		}
	}
}

// smsSecretSection is the part of the Webhook credentials page about one SMS provider's secret.
func smsSecretSection(t *testing.T, page, provider string) string {
	t.Helper()
	start := strings.Index(page, `data-testid="sms-secret" data-sms-provider="`+provider+`"`)
	if start < 0 {
		t.Fatalf("no SMS secret section for %s", provider)
	}
	rest := page[start:]
	if end := strings.Index(rest, "</form>"); end > 0 {
		rest = rest[:end]
	}
	return rest
}

// TestSecretsKeyRotation: an SMS secret is stored sealed (its plaintext in no data file);
// 'secrets rotate-secrets-key' re-seals it under a fresh key in the secrets file, and a server
// on the rotated files still verifies the provider's signature with it.
func TestSecretsKeyRotation(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant, key, _ := smsSetup(t, s)
	s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "twilio", "--secret", "plaintext-auth-token")
	if s.getenv("MONGODB_URI") == "" {
		for name, b := range s.dataFiles() {
			if strings.Contains(string(b), "plaintext-auth-token") {
				t.Errorf("%s holds the secret in plaintext", name)
			}
		}
	}
	out := s.cli("secrets", "rotate-secrets-key")
	if out["secretsKeyId"] != "1" || out["retired"] != "0" || out["resealed"] != float64(1) || out["unreadable"] != float64(0) {
		t.Fatalf("rotate: %v", out)
	}
	file, err := os.ReadFile(filepath.Join(s.Dir, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), `"secretsKey"`) || strings.Contains(string(file), "retiredSecretsKeys") {
		t.Errorf("secrets file after rotation: a key of its own and no retired one expected")
	}
	fresh := startOn(t, s.Dir, s.envList()...)
	assertTwiML(t, twilioPost(t, fresh, tenant, "plaintext-auth-token", twilioForm(t, "twilio_stop.form")))
	assertPhoneRevoked(t, fresh, key, "alice")
}

// TestSendGridOAuth: SendGrid's OAuth client-credentials option. A tenant's SendGrid client
// (token create --provider sendgrid) gets a short-lived bearer token at the token endpoint,
// which SendGrid's deliveries then carry; the token is good on the SendGrid path alone, and no
// longer once the client is revoked. Wrong secrets and grant types are refused.
func TestSendGridOAuth(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tenant := s.tenant()
	key := s.key(tenant, "all")
	subscriber(t, s, key, "dana", "dana@example.org", neighbour)
	client := s.cli("token", "create", "--tenant", tenant, "--provider", "sendgrid", "--name", "SendGrid OAuth")
	id, secret := client["id"].(string), client["token"].(string)
	tokenPath := "/api/v1/sendgrid/oauth/token"
	form := func(v url.Values) string { return v.Encode() }
	for name, tc := range map[string]struct {
		body   string
		header []string
		status int
	}{
		"wrong secret":     {form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret + "x"}}), nil, 401},
		"other client id":  {form(url.Values{"grant_type": {"client_credentials"}, "client_id": {"nope"}, "client_secret": {secret}}), nil, 401},
		"wrong grant type": {form(url.Values{"grant_type": {"password"}, "client_id": {id}, "client_secret": {secret}}), nil, 400},
	} {
		if r := call(t, s, "POST", tokenPath, "", tc.body, append([]string{formType}, tc.header...)...); r.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", name, r.Status, r.Body, tc.status)
		}
	}
	basic := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
	r := call(t, s, "POST", tokenPath, "", "grant_type=client_credentials", formType, basic)
	if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	tok := r.JSON(t)
	access, _ := tok["access_token"].(string)
	if access == "" || tok["token_type"] != "Bearer" || tok["expires_in"] != float64(3600) {
		t.Fatalf("token body %s", r.Body)
	}
	events := `[{"email":"dana@example.org","event":"unsubscribe","sg_event_id":"oauth-1"}]`
	if r := call(t, s, "POST", unsubPath("brevo"), access, map[string]any{"email": "dana@example.org"}); r.Status != 401 {
		t.Fatalf("the access token on the Brevo path: %d %s", r.Status, r.Body)
	}
	assertUntouched(t, s, key, "dana")
	assertUnsubscribed(t, call(t, s, "POST", unsubPath("sendgrid"), access, events), 1)
	assertRevoked(t, s, key, "dana")

	s.cli("token", "revoke", "--tenant", tenant, "--id", id)
	if r := call(t, s, "POST", unsubPath("sendgrid"), access, events); r.Status != 401 {
		t.Fatalf("after revocation: %d %s", r.Status, r.Body)
	}
	if r := call(t, s, "POST", tokenPath, "", "grant_type=client_credentials", formType, basic); r.Status != 401 {
		t.Fatalf("token after revocation: %d %s", r.Status, r.Body)
	}
}

// TestSMSTwilioForwarded: without CONSENTFORMS_PUBLIC_URL, Twilio's URL is rebuilt from
// X-Forwarded-Proto and -Host only when a trusted proxy sent them.
func TestSMSTwilioForwarded(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{true, false} {
		env := []string{}
		if trusted {
			env = append(env, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.1")
		}
		s := startServer(t, env...)
		tenant, key, _ := smsSetup(t, s)
		s.cli("tenant", "set-sms-secret", "--tenant", tenant, "--provider", "twilio", "--secret", "tok")
		stop := twilioForm(t, "twilio_stop.form")
		path := unsubPath("twilio") + "?tenant=" + url.QueryEscape(tenant)
		r := call(t, s, "POST", path, "", stop.Encode(), formType, "X-Forwarded-Proto: https", "X-Forwarded-Host: forms.example.org",
			"X-Twilio-Signature: "+unsubscribe.TwilioSignature("tok", "https://forms.example.org"+path, stop))
		if trusted {
			assertTwiML(t, r)
			assertPhoneRevoked(t, s, key, "alice")
		} else if r.Status != 401 {
			t.Errorf("forwarded headers from an untrusted peer were believed: %d %s", r.Status, r.Body)
		}
	}
}
