package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserEndpoints: a tenant admin adds an outgoing webhook endpoint, copies its
// secret from the one page that shows it, and reads the delivery log after an unsubscribe; a
// viewer sees no such page.
func TestAdminBrowserEndpoints(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	rcv := newReceiver(t, false)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	s.cli("staff", "create", "--email", "view@example.org", "--password", "view-password-1", "--role", "viewer", "--tenant", tn)
	k := s.key(tn, "all")
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)

	wantStatus(t, "webhooks", u.submit("nav-webhooks"), 200)
	wantStatus(t, "endpoints", u.submit("endpoints-link"), 200)
	u.visible("endpoints-empty")
	u.fill("url", rcv.URL+"/crm")
	wantStatus(t, "no events", u.submit("endpoint-submit"), 422)
	u.visible("error-event")
	u.do(chromedp.Click(sel("input-event-consent-granted")), chromedp.Click(sel("input-event-consent-revoked")))
	wantStatus(t, "add", u.submit("endpoint-submit"), 200)
	secret := u.text("endpoint-secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	u.shot("endpoints-01-secret-once")
	wantStatus(t, "back", u.submit("endpoints-back"), 200)
	if got := u.text("endpoint-events"); got != "consent.granted, consent.revoked" {
		t.Errorf("events listed: %q", got)
	}
	if strings.Contains(u.pageText(), secret) {
		t.Error("the list shows the secret")
	}

	subscriber(t, s, k, "s1", "crm@example.org", "")
	assertUnsubscribed(t, call(t, s, "POST", unsubPath("brevo"), k, map[string]any{"email": "crm@example.org"}), 1)
	rcv.await(t, "two deliveries", func(r *receiver) bool { return len(r.got) >= 2 })
	for _, d := range rcv.got {
		verifySignature(t, secret, d)
	}
	wantStatus(t, "log", u.submit("endpoint-log"), 200)
	// The receiver answers before the dispatcher records the answer: read the log again until
	// it has (bounded, a hang guard).
	for i := 0; i < 200 && strings.Count(u.pageText(), "delivered") < 2; i++ {
		time.Sleep(25 * time.Millisecond)
		u.do(chromedp.Reload())
	}
	if rows := u.pageText(); !strings.Contains(rows, "consent.revoked") || !strings.Contains(rows, "consent.granted") ||
		strings.Count(rows, "delivered") < 2 {
		t.Errorf("delivery log:\n%s", rows)
	}
	if got := u.text("delivery-result"); got != "200" {
		t.Errorf("result: %q", got)
	}
	u.shot("endpoints-02-delivery-log")

	wantStatus(t, "list", u.open("/admin/outgoing-webhooks"), 200)
	u.do(chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`))
	u.do(chromedp.Click(sel("endpoint-delete")), chromedp.WaitVisible(sel("endpoints-empty")))
	u.shot("endpoints-03-deleted")

	v := newAdminUI(t, s)
	wantStatus(t, "viewer sign in", v.signedIn("view@example.org", "view-password-1"), 200)
	wantStatus(t, "viewer endpoints", v.open("/admin/outgoing-webhooks"), 403)
}
