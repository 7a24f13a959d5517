package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserOneIDFormat: an object's id reads the same in the CLI's output, the API's
// use of it and the admin UI: an API key, a Mailchimp token, an outgoing webhook endpoint, a
// staff user. Where the object has a name, the page shows the name with the id on hover.
func TestAdminBrowserOneIDFormat(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	staffID := s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)["id"].(string)
	issued := s.cli("key", "create", "--tenant", tn, "--scopes", "all", "--name", "Shop")
	keyID, key := issued["id"].(string), issued["key"].(string)
	tokenID := s.cli("token", "create", "--tenant", tn, "--provider", "mailchimp", "--name", "Newsletter")["id"].(string)
	endpointID := s.cli("webhook", "create", "--tenant", tn, "--url", "https://crm.example.org/hooks", "--events", "all")["id"].(string)
	if !strings.HasPrefix(key, "cf_"+keyID+"_") {
		t.Errorf("key %q does not carry its id %q", key, keyID)
	}
	listed := func(out map[string]any, field string) []string {
		var ids []string
		items, _ := out[field].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			id, _ := m["id"].(string)
			ids = append(ids, id)
		}
		return ids
	}
	if got := listed(s.cli("token", "list", "--tenant", tn), "tokens"); len(got) != 1 || got[0] != tokenID {
		t.Errorf("token list ids %v, token create printed %s", got, tokenID)
	}
	if got := listed(s.cli("webhook", "list", "--tenant", tn), "endpoints"); len(got) != 1 || got[0] != endpointID {
		t.Errorf("webhook list ids %v, webhook create printed %s", got, endpointID)
	}
	submit(t, s, key, map[string]any{"form_id": "petition", "submission_id": "s1", "email": "ada@example.org", "consent_to_general_contact_email": true})

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "keys", u.open("/admin/keys"), 200)
	if got, title := u.text("key-id"), u.attr("key-id", "title"); got != keyID || !strings.Contains(title, "cf_"+keyID+"_") {
		t.Errorf("keys page shows the key as %q (title %q), the CLI printed %q", got, title, keyID)
	}
	if got := u.text("key-name"); got != "Shop" {
		t.Errorf("key name %q", got)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/keys")
		u.checkLayout("keys", vp.w)
	}
	wantStatus(t, "webhook credentials", u.open("/admin/webhooks"), 200)
	if got, title := u.text("mailchimp-token-id"), u.attr("mailchimp-token-id", "title"); got != tokenID || !strings.Contains(title, tokenID) {
		t.Errorf("webhooks page shows the token as %q (title %q), the CLI printed %q", got, title, tokenID)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/webhooks")
		u.checkLayout("webhook-credentials", vp.w)
	}
	// An endpoint's name is its URL; its id is on hover, and names its delivery log.
	wantStatus(t, "endpoints", u.open("/admin/outgoing-webhooks"), 200)
	if row, title := u.attr("endpoint-row", "data-endpoint-id"), u.attr("endpoint-url", "title"); row != endpointID || title != "Endpoint id "+endpointID {
		t.Errorf("endpoints page: row %q, title %q; the CLI printed %q", row, title, endpointID)
	}
	wantStatus(t, "delivery log", u.open("/admin/outgoing-webhooks/"+endpointID), 200)
	wantStatus(t, "staff", u.open("/admin/staff"), 200)
	if got := u.attr("staff-row", "data-staff-id"); got != staffID {
		t.Errorf("staff page row %q, the CLI printed %q", got, staffID)
	}
	// The audit log names the key, its id (as the CLI printed it) on hover.
	wantStatus(t, "audit", u.open("/admin/audit?action=consent.granted"), 200)
	if got, id := u.text("audit-actor"), u.attr("audit-actor", "data-actor-id"); got != "API key “Shop”" || id != "key:"+keyID {
		t.Errorf("audit actor %q (%q), want API key “Shop” (key:%s)", got, id, keyID)
	}
}
