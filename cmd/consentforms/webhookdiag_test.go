package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sendGridSetup is a tenant with a SendGrid key and a tenant admin who signs in; sign signs
// a body as SendGrid would at ts.
func sendGridSetup(t *testing.T, s *testServer) (tenant string, sign func(ts string, body []byte) []string) {
	t.Helper()
	tenant = s.tenant()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	s.cli("tenant", "set-sendgrid-key", "--tenant", tenant, "--public-key", base64.StdEncoding.EncodeToString(der))
	s.cli("staff", "create", "--email", "admin@example.com", "--password", "admin-password-1", "--role", "tenant_admin", "--tenant", tenant)
	return tenant, func(ts string, body []byte) []string {
		h := sha256.Sum256(append([]byte(ts), body...))
		sig, err := ecdsa.SignASN1(rand.Reader, priv, h[:])
		if err != nil {
			t.Fatal(err)
		}
		return []string{jsonType, "X-Twilio-Email-Event-Webhook-Signature: " + base64.StdEncoding.EncodeToString(sig),
			"X-Twilio-Email-Event-Webhook-Timestamp: " + ts}
	}
}

// refusedBody is a SendGrid delivery whose address must never reach the diagnostics.
const refusedBody = `[{"email":"secret.person@example.org","event":"unsubscribe","timestamp":1712656800}]`

// TestWebhookDiagnostics: a refused SendGrid delivery (stale timestamp, then a bad signature)
// shows on the Webhook credentials page with its reason, never its body or address; an
// accepted one shows its event and unsubscribe counts; a wrong-scope key is named too; and the
// page gives the exact URL to paste.
func TestWebhookDiagnostics(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, sign := sendGridSetup(t, s)
	path := unsubPath("sendgrid") + "?tenant=" + tn
	old := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	if r := call(t, s, "POST", path, "", []byte(refusedBody), sign(old, []byte(refusedBody))...); r.Status != 401 {
		t.Fatalf("stale delivery: %d %s", r.Status, r.Body)
	}
	a := newAdminClient(t, s)
	a.signIn("admin@example.com", "admin-password-1")
	_, page := a.get("/admin/webhooks")
	sendgrid := providerSection(t, page, "sendgrid")
	if !strings.Contains(sendgrid, `data-reason="stale_timestamp"`) || !strings.Contains(sendgrid, "stale timestamp") {
		t.Errorf("the SendGrid section does not show the stale timestamp:\n%s", sendgrid)
	}
	if !strings.Contains(sendgrid, s.LinkBase+"/api/v1/sendgrid/unsubscribe?tenant="+url.QueryEscape(tn)) {
		t.Errorf("the SendGrid section does not give the URL to paste:\n%s", sendgrid)
	}

	bad := append(sign(strconv.FormatInt(time.Now().Unix(), 10), []byte(refusedBody))[:1],
		"X-Twilio-Email-Event-Webhook-Signature: "+base64.StdEncoding.EncodeToString([]byte("forged")),
		"X-Twilio-Email-Event-Webhook-Timestamp: "+strconv.FormatInt(time.Now().Unix(), 10))
	if r := call(t, s, "POST", path, "", []byte(refusedBody), bad...); r.Status != 401 {
		t.Fatalf("forged delivery: %d %s", r.Status, r.Body)
	}
	good := []byte(`[{"email":"someone@example.org","event":"unsubscribe"},{"email":"someone@example.org","event":"open"}]`)
	if r := call(t, s, "POST", path, "", good, sign(strconv.FormatInt(time.Now().Unix(), 10), good)...); r.Status != 200 {
		t.Fatalf("signed delivery: %d %s", r.Status, r.Body)
	}
	readOnly := s.key(tn, "submissions:read")
	if r := call(t, s, "POST", unsubPath("brevo"), readOnly, map[string]any{"email": "x@example.org"}); r.Status != 403 {
		t.Fatalf("read-only key: %d %s", r.Status, r.Body)
	}
	_, page = a.get("/admin/webhooks")
	sendgrid = providerSection(t, page, "sendgrid")
	if !strings.Contains(sendgrid, `data-reason="bad_signature"`) || !strings.Contains(sendgrid, "2 event(s), 0 unsubscribe(s) applied") {
		t.Errorf("the SendGrid section after a forged and a signed delivery:\n%s", sendgrid)
	}
	if !strings.Contains(sendgrid, "<td>1</td><td>2</td>") {
		t.Errorf("today's counts are not 1 accepted, 2 refused:\n%s", sendgrid)
	}
	if brevo := providerSection(t, page, "brevo"); !strings.Contains(brevo, `data-reason="wrong_scope"`) {
		t.Errorf("the Brevo section does not show the wrong scope:\n%s", brevo)
	}
	for _, leak := range []string{"secret.person", "someone@example.org", "1712656800"} {
		if strings.Contains(page, leak) {
			t.Errorf("the page shows %q from a delivery", leak)
		}
	}
}

// providerSection is the part of the Webhook credentials page about one provider.
func providerSection(t *testing.T, page, provider string) string {
	t.Helper()
	start := strings.Index(page, `data-provider="`+provider+`"`)
	if start < 0 {
		t.Fatalf("no section for %s", provider)
	}
	rest := page[start:]
	if end := strings.Index(rest[1:], `data-testid="webhook-provider"`); end > 0 {
		rest = rest[:end]
	}
	return rest
}

// TestWebhookDiagnosticsBrowser: the diagnostics page in a browser shows a refused SendGrid
// delivery with its reason and without its body, and "Send test" reports its result.
func TestWebhookDiagnosticsBrowser(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn, sign := sendGridSetup(t, s)
	old := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	if r := call(t, s, "POST", unsubPath("sendgrid")+"?tenant="+tn, "", []byte(refusedBody), sign(old, []byte(refusedBody))...); r.Status != 401 {
		t.Fatalf("stale delivery: %d %s", r.Status, r.Body)
	}
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("admin@example.com", "admin-password-1"), 200)
	wantStatus(t, "webhooks", u.submit("nav-webhooks"), 200)
	sg := `[data-provider="sendgrid"] `
	refusal, shown := u.textOf(sg+`[data-testid="webhook-last-refusal"]`), u.textOf(`[data-testid="webhook-deliveries"]`)
	if !strings.Contains(refusal, "stale timestamp") {
		t.Errorf("SendGrid's last refusal reads %q", refusal)
	}
	if strings.Contains(shown, "secret.person") {
		t.Error("the page shows the refused body's address")
	}
	u.shot("40-webhook-diagnostics")
	wantStatus(t, "send test", u.submitIn(sg+`[data-testid="webhook-test"]`), 200)
	flash, delivery := u.textOf(`[data-testid="flash-success"]`), u.textOf(sg+`[data-testid="webhook-last-delivery"]`)
	if !strings.Contains(flash, "1 event(s) read, 0 unsubscribe(s) applied") || !strings.Contains(delivery, "1 event(s), 0 unsubscribe(s) applied") {
		t.Errorf("after Send test: flash %q, last delivery %q", flash, delivery)
	}
	u.shot("41-webhook-send-test")
}

// submitIn clicks the element matching css, which loads a page, and returns its status.
func (u *adminUI) submitIn(css string) int64 {
	u.t.Helper()
	resp, err := chromedp.RunResponse(u.ctx, chromedp.Click(chromedp.CSS(css)))
	if err != nil {
		u.t.Fatalf("click %s: %v\npage text:\n%s", css, err, u.pageText())
	}
	if resp == nil {
		return 0
	}
	return resp.Status
}

// textOf is the text of the first element matching css.
func (u *adminUI) textOf(css string) string {
	u.t.Helper()
	txt, err := chromedp.Run(u.ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		u.t.Fatalf("text of %s: %v\npage text:\n%s", css, err, u.pageText())
	}
	return strings.TrimSpace(txt)
}
