package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserEndpointHealth: an endpoint whose receiver refuses every delivery reads as
// failing — how many in a row, never a success, when the next attempt is — not as active,
// next to a healthy one; the delivery log fits the page at 1280 and 1024 px.
func TestAdminBrowserEndpointHealth(t *testing.T) {
	requireChromium(t)
	good, bad := newReceiver(t, false), newReceiver(t, true)
	s := startServer(t, append(webhookEnv[:1:1], "CONSENTFORMS_WEBHOOK_BACKOFF=1h", "CONSENTFORMS_WEBHOOK_POLL=20ms")...)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	goodEP := s.cli("webhook", "create", "--tenant", tn, "--url", good.URL+"/crm", "--events", "all")["id"].(string)
	badEP := s.cli("webhook", "create", "--tenant", tn, "--url", bad.URL+"/down", "--events", "all")["id"].(string)
	for _, id := range []string{"s1", "s2"} {
		subscriber(t, s, k, id, id+"@example.org", "")
	}
	good.await(t, "two deliveries", func(r *receiver) bool { return len(r.got) >= 2 })
	bad.await(t, "two refused deliveries", func(r *receiver) bool { return len(r.failed) >= 2 })

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	health := func(id string) (state, text string) {
		v, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](`(() => { const c = document.querySelector('tr[data-endpoint-id="`+id+
			`"] [data-testid="endpoint-status"]'); return [c.querySelector('[data-health]').dataset.health, c.textContent.replace(/\s+/g, ' ').trim()]; })()`))
		if err != nil || len(v) != 2 {
			t.Fatalf("health of %s: %v %v", id, v, err)
		}
		return v[0], v[1]
	}
	// The dispatcher records an answer after the receiver gave it: reload until it has (a hang guard).
	var state, text string
	for i := 0; i < 200; i++ {
		wantStatus(t, "endpoints", u.open("/admin/outgoing-webhooks"), 200)
		if state, text = health(badEP); state == "failing" && strings.Contains(text, "2 deliveries in a row") {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if state != "failing" || !strings.Contains(text, "2 deliveries in a row") || !strings.Contains(text, "Last success: never") ||
		!strings.Contains(text, "Next attempt:") || strings.Contains(text, "Active") {
		t.Errorf("the refused endpoint reads %s: %q", state, text)
	}
	if state, text := health(goodEP); state != "healthy" || strings.Contains(text, "never") {
		t.Errorf("the healthy endpoint reads %s: %q", state, text)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/outgoing-webhooks")
		u.checkLayout("endpoints", vp.w)
		u.open("/admin/outgoing-webhooks/" + badEP)
		u.checkLayout("delivery-log", vp.w)
	}
}
