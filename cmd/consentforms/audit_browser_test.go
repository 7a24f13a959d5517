package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserAuditReadable: the audit log names actions in words with the code in the
// tooltip, its actor filter takes a staff user's e-mail address or an API key's name, and its
// dates are typed as ISO dates whatever the browser's locale.
func TestAdminBrowserAuditReadable(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "email": "ann@example.org", "consent_to_general_contact_email": true})
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)

	wantStatus(t, "audit", u.open("/admin/audit"), 200)
	labels := u.texts("audit-action-label")
	// The submission is one entry: its consent.granted (no second "Submission received").
	if !contains(labels, "Staff signed in") || contains(labels, "Submission received") || !contains(labels, "Consent granted") {
		t.Errorf("action labels %q", labels)
	}
	if title, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](
		`[...document.querySelectorAll('[data-testid="audit-action-label"]')].find(e => e.textContent === 'Staff signed in').title`)); err != nil || title != "staff.login" {
		t.Errorf("tooltip %q, %v; want the code staff.login", title, err)
	}

	if got, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="audit-row"]')].
		find(r => r.textContent.includes('Staff user created')).querySelector('[data-testid="audit-record"]').textContent`)); err != nil || got != "lead@example.org" {
		t.Errorf("staff.created names %q, %v; want the new user's e-mail address", got, err)
	}
	// The filter form swaps the results in with htmx; its URL is the same as a link's.
	wantStatus(t, "filter by e-mail", u.open("/admin/audit?actor=LEAD%40example.org"), 200)
	if got := u.texts("audit-action-label"); len(got) != 1 || got[0] != "Staff signed in" {
		t.Errorf("entries of lead@example.org: %q, want the sign-in", got)
	}
	wantStatus(t, "filter by key name", u.open("/admin/audit?actor=CLI+key"), 200)
	if got := u.texts("audit-action-label"); len(got) != 1 || got[0] != "Consent granted" {
		t.Errorf("entries of the key: %q, want its submission's one entry", got)
	}
	wantStatus(t, "unknown actor", u.open("/admin/audit?actor=nobody%40example.org"), 422)
	u.visible("error-actor")

	if typ := u.attr("input-from", "type"); typ != "text" || u.attr("input-from", "placeholder") != "2026-01-31" {
		t.Errorf("from input type %q: a date input shows the locale's order", typ)
	}
	wantStatus(t, "from today", u.open("/admin/audit?from="+time.Now().UTC().Format(time.DateOnly)), 200)
	if got := u.texts("audit-action-label"); len(got) < 3 {
		t.Errorf("entries from today: %q", got)
	}
	wantStatus(t, "not ISO", u.open("/admin/audit?from=25.11.2026"), 422)
	if got := u.text("error-from"); !strings.Contains(got, "YYYY-MM-DD") {
		t.Errorf("error %q", got)
	}
	// A favicon, served from the embedded assets (the browser asked /favicon.ico in vain before).
	if st, body := u.fetch("GET", u.attrCSS(`link[rel="icon"]`, "href"), nil); st != 200 || !strings.Contains(body, "<svg") {
		t.Errorf("favicon: %d", st)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/audit")
		u.checkLayout("audit", vp.w)
	}
}

// attrCSS is an attribute of the first element a CSS selector finds.
func (u *adminUI) attrCSS(css, name string) string {
	u.t.Helper()
	v, err := chromedp.Run(u.ctx, chromedp.AttributeValue(chromedp.CSS(css), name))
	if err != nil || !v.Exists {
		u.t.Fatalf("attribute %s of %s: %v", name, css, err)
	}
	return v.Value
}
