package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The admin UI at the window sizes it must hold at, on realistic data: every page with a
// table keeps its action buttons in view, no table scrolls sideways, and the navigation
// fits one row at 1280 px.

// viewports are the window sizes the admin UI is checked at.
var viewports = []struct{ w, h int64 }{{1280, 800}, {1024, 768}}

// layoutProblemsJS lists what a staff member would trip over on the page as loaded (not
// scrolled): an action button of a table outside the viewport, a table wider than its
// box (scrolling sideways), a page wider than the window.
const layoutProblemsJS = `(() => {
	const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
	const out = [];
	for (const b of document.querySelectorAll('table button, table .button')) {
		const r = b.getBoundingClientRect();
		if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) {
			out.push('button "' + b.textContent.trim() + '" at ' + [r.left, r.top, r.right, r.bottom].map(Math.round) + ' outside ' + vw + 'x' + vh);
		}
	}
	for (const w of document.querySelectorAll('.table-wrap')) {
		if (w.scrollWidth > w.clientWidth + 1) {
			const t = w.querySelector('table');
			out.push('table ' + (t.dataset.testid || t.querySelector('th').textContent) + ' scrolls sideways: ' + w.scrollWidth + ' > ' + w.clientWidth);
		}
	}
	if (document.documentElement.scrollWidth > vw) out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
	return out;
})()`

// placeholderFitsJS reports whether the audit log's Actor filter shows its placeholder whole.
const placeholderFitsJS = `(() => {
	const i = document.querySelector('#actor'), st = getComputedStyle(i);
	const c = document.createElement('canvas').getContext('2d');
	c.font = st.font;
	return c.measureText(i.placeholder).width <= i.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
})()`

// navRowsJS counts the rows the navigation takes.
const navRowsJS = `new Set([...document.querySelectorAll('.site-nav li')].map(li => li.offsetTop)).size`

// checkLayout fails the test with the page's layout problems, and saves a screenshot.
func (u *adminUI) checkLayout(name string, w int64) {
	u.t.Helper()
	problems, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](layoutProblemsJS))
	if err != nil {
		u.t.Fatal(err)
	}
	for _, p := range problems {
		u.t.Errorf("%s at %d px: %s", name, w, p)
	}
	if rows, err := chromedp.Run(u.ctx, chromedp.Evaluate[int](navRowsJS)); err != nil || (w >= 1280 && rows != 1) {
		u.t.Errorf("%s at %d px: the navigation takes %d rows (%v)", name, w, rows, err)
	}
	u.shot(fmt.Sprintf("layout-%d-%s", w, name))
}

// count is the number of elements with the data-testid.
func (u *adminUI) count(testid string) int {
	u.t.Helper()
	n, err := chromedp.Run(u.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('[data-testid=%q]').length`, testid)))
	if err != nil {
		u.t.Fatal(err)
	}
	return n
}

// submitCSS clicks the element a CSS selector finds and returns the status of the page it loads.
func (u *adminUI) submitCSS(css string) int64 {
	u.t.Helper()
	resp, err := chromedp.RunResponse(u.ctx, chromedp.Click(chromedp.CSS(css)))
	if err != nil || resp == nil {
		u.t.Fatalf("click %s: %v\npage text:\n%s", css, err, u.pageText())
	}
	return resp.Status
}

// findPerson searches from the submissions page and returns the status of the results page.
func (u *adminUI) findPerson(email, phone string) int64 {
	u.t.Helper()
	u.open("/admin/submissions")
	u.fill("email", email)
	u.fill("phone", phone)
	return u.submit("find-person-submit")
}

// seedLayoutData provisions what the layout test shows: two tenants and ten more to choose
// from, keys with long names and scopes, a Mailchimp token, a viewer, one person with records
// of every kind and another whose general-contact consents were revoked.
func seedLayoutData(t *testing.T, s *testServer) (tenant string) {
	tenant = s.tenant()
	s.cli("tenant", "create", "--name", "Beta Campaigns")
	for i := range 10 {
		s.cli("tenant", "create", "--name", fmt.Sprintf("Campaign %02d", i))
	}
	key := s.cli("key", "create", "--tenant", tenant, "--scopes", "all", "--name", "Website sign-up form")["key"].(string)
	s.cli("key", "create", "--tenant", tenant, "--name", "CRM import, nightly",
		"--scopes", "submissions:write,records:write,submissions:read,gdpr:anonymise,unsubscribe:write")
	s.cli("token", "create", "--tenant", tenant, "--provider", "mailchimp")
	s.cli("staff", "create", "--email", "viewer@example.com", "--password", "viewer-password-1", "--role", "viewer", "--tenant", tenant)
	seedPerson(t, s, key, ophelia, "p1-")
	submit(t, s, key, map[string]any{"form_id": "petition", "submission_id": "0190f3c2-7a4b-7c1d-9e2f-3a4b5c6d7e8f",
		"email": "maximilian.mustermann-schmidt@very-long-domain-name.example.org", "phone_number": "+4915112345678",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "2y",
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true})
	if r := s.do("POST", "/api/v1/brevo/unsubscribe", key, map[string]any{"phone": "+4915112345678"}); r.Status != 200 {
		t.Fatalf("unsubscribe: %d %s", r.Status, r.Body)
	}
	return tenant
}

// TestAdminBrowserLayout: a platform admin's journey over realistic data at 1280×800 and
// 1024×768, then the same tenant through a viewer's eyes.
func TestAdminBrowserLayout(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t)
	tenant := seedLayoutData(t, s)
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signIn("root@example.com", "root-password-1"), 200)

	// Staff form without a tenant chosen: the defaults say what is missing.
	u.open("/admin/staff")
	u.fill("email", "new.viewer@example.com")
	u.fill("password", "new-viewer-password-1")
	wantStatus(t, "staff without tenant", u.submit("staff-create-submit"), 422)
	if got := u.text("error-tenant"); !strings.HasPrefix(got, "Choose the tenant this user belongs to") {
		t.Errorf("staff tenant error %q", got)
	}

	// Choose tenant: nothing preselected; twelve tenants can be searched by name.
	wantStatus(t, "choose tenant", u.submit("nav-tenant"), 200)
	if v, err := chromedp.Run(u.ctx, chromedp.Value(sel("input-tenant"))); err != nil || v != "" {
		t.Errorf("choose tenant preselects %q (%v)", v, err)
	}
	u.do(chromedp.SendKeys(sel("input-tenant-q"), "beta"),
		waitJS(`document.querySelector('[data-testid="tenant-match-count"]').textContent.startsWith("1 of 12")`))
	u.shot("layout-choose-tenant-search")
	u.open("/admin/choose-tenant")
	u.do(chromedp.SetValue(sel("input-tenant"), tenant))
	wantStatus(t, "work on tenant", u.submit("tenant-choose-submit"), 200)

	// With a tenant chosen, the staff form's defaults (Viewer in this tenant) go through.
	u.open("/admin/staff")
	u.fill("email", "new.viewer@example.com")
	u.fill("password", "new-viewer-password-1")
	wantStatus(t, "staff with defaults", u.submit("staff-create-submit"), 200)
	u.visible("flash-success")

	// Finding a person: the term is posted, all four kinds come back, each links to its page.
	wantStatus(t, "find person", u.findPerson(strings.ToUpper(ophelia.email), ophelia.phoneSent), 200)
	if loc, _ := chromedp.Run(u.ctx, chromedp.Location()); strings.Contains(strings.ToLower(loc), "ophelia") || strings.Contains(loc, "176") {
		t.Errorf("the search term is in the URL %q", loc)
	}
	if n := u.count("person-row"); n != 9 {
		t.Errorf("found %d records, want 9", n)
	}
	kinds, _ := chromedp.Run(u.ctx, chromedp.Evaluate[string](`[...new Set([...document.querySelectorAll('[data-testid="person-row"]')].map(r => r.dataset.kind))].sort().join(",")`))
	if kinds != "canvassingSubmission,digitisationSubmission,formSubmission,phoneCallTask" {
		t.Errorf("kinds found: %s", kinds)
	}
	u.shot("21-find-person")
	wantStatus(t, "canvassing record", u.submitCSS(`[data-kind="canvassingSubmission"] [data-testid="person-record-link"]`), 200)
	if got := u.attr("record-kind", "data-kind"); got != "canvassingSubmission" {
		t.Errorf("record page of kind %q", got)
	}
	u.visible("record-fields")
	u.shot("22-canvassing-record")

	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		for _, p := range []struct{ name, path string }{
			{"dashboard", "/admin/"}, {"forms", "/admin/forms"}, {"submissions", "/admin/submissions"},
			{"submission", "/admin/submissions/p1-f1"}, {"keys", "/admin/keys"}, {"webhooks", "/admin/webhooks"},
			{"staff", "/admin/staff"}, {"tenants", "/admin/tenants"}, {"audit", "/admin/audit"},
		} {
			wantStatus(t, p.name, u.open(p.path), 200)
			u.checkLayout(p.name, vp.w)
		}
		if fits, err := chromedp.Run(u.ctx, chromedp.Evaluate[bool](placeholderFitsJS)); err != nil || !fits {
			t.Errorf("at %d px the audit log's Actor placeholder is cut off (%v)", vp.w, err)
		}
		u.findPerson(ophelia.email, ophelia.phone)
		u.checkLayout("find-person", vp.w)
	}
	u.do(chromedp.EmulateViewport(1280, 800))

	// Erasure from the search results; the record then says what happened.
	u.findPerson(ophelia.email, ophelia.phone)
	wantStatus(t, "anonymise preview", u.submit("person-anonymise"), 200)
	if got := u.text("anonymise-preview-count-canvassingSubmissions"); got != "2" {
		t.Errorf("preview counts %s canvassing submissions", got)
	}
	u.fill("confirm", "ERASE")
	wantStatus(t, "erase", u.submit("anonymise-confirm-submit"), 200)
	u.open("/admin/submissions/p1-f1")
	if got := u.text("erased-note"); !strings.HasPrefix(got, "Personal data erased on ") || !strings.Contains(got, "record of what was agreed") {
		t.Errorf("erased note %q", got)
	}
	u.shot("23-erased-submission")

	// The audit log names actors and consents, to the second, and folds long record lists.
	u.open("/admin/audit")
	u.checkLayout("audit-after-erasure", 1280)
	checkAuditRows(t, u, "root@example.com")

	// A viewer: no person search, platform admin actions named by role, e-mails masked.
	wantStatus(t, "sign out", u.submit("logout-button"), 200)
	wantStatus(t, "viewer", u.signIn("viewer@example.com", "viewer-password-1"), 200)
	u.open("/admin/submissions")
	if u.present("find-person-form") {
		t.Error("a viewer is offered the person search")
	}
	token, err := chromedp.Run(u.ctx, chromedp.Value(chromedp.CSS(`input[name="_csrf"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := u.fetch("POST", "/admin/submissions/find", map[string]string{"_csrf": token, "email": ophelia.email}); st != 403 {
		t.Errorf("viewer person search: %d, want 403", st)
	}
	u.open("/admin/audit")
	checkAuditRows(t, u, "Platform admin")
	u.open("/admin/audit?action=staff.login")
	if got := u.text("audit-actor"); got != "v***@e***.com" {
		t.Errorf("a viewer sees its own sign-in's actor as %q, want it masked", got)
	}
	u.shot("24-audit-viewer")
}

// clockTime matches a time shown to the second.
var clockTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$`)

// checkAuditRows checks the audit log as shown: the erasure's actor, the key's name, the
// consents of a consent.granted entry (a stored record's one entry), times to the second and the "+N more" of the erasure.
func checkAuditRows(t *testing.T, u *adminUI, eraser string) {
	t.Helper()
	type row struct{ Time, Title, Actor, ActorID, Action, Records, More string }
	rows, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]row](`[...document.querySelectorAll('[data-testid="audit-row"]')].map(r => ({
		Time: r.querySelector('time').textContent.replace(/\s+/g, ' ').trim(), Title: r.querySelector('time').title,
		Actor: r.querySelector('[data-testid="audit-actor"]').textContent.trim(),
		ActorID: r.querySelector('[data-testid="audit-actor"]').dataset.actorId,
		Action: r.querySelector('[data-testid="audit-action"]').textContent.replace(/\u2011/g, '-').replace(/\s+/g, ' ').trim(),
		Records: String(r.querySelectorAll('[data-testid="audit-records"] > [data-testid="audit-record"]').length),
		More: (r.querySelector('[data-testid="audit-records-more"] summary') || {textContent: ''}).textContent}))`))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if !clockTime.MatchString(r.Time) || !strings.HasSuffix(r.Title, "Z") || len(r.Title) != len("2006-01-02T15:04:05.000Z") {
			t.Errorf("time %q (title %q) is not to the second", r.Time, r.Title)
		}
		switch {
		case r.Action == "Person erased":
			seen["erasure"] = true
			// Ophelia's 6 own records; the 3 that only mention her are in a gdpr.mentions_removed row.
			if r.Actor != eraser || !strings.HasPrefix(r.ActorID, "staff:") || r.Records != "3" || r.More != "+3 more" {
				t.Errorf("erasure row %+v", r)
			}
		case strings.HasPrefix(r.Action, "Submission received"), strings.HasPrefix(r.Action, "Record received"):
			t.Errorf("a stored record wrote a second entry: %+v", r)
		case strings.HasPrefix(r.Action, "Consent granted"), strings.HasPrefix(r.Action, "Record created"):
			if r.Action == "Consent granted — primary purpose, general contact by e-mail, general contact by phone" {
				seen["granted"] = true
			}
			if strings.HasPrefix(r.ActorID, "key:") {
				seen["key"] = true
				if r.Actor != "API key “Website sign-up form”" {
					t.Errorf("key actor %q (%s)", r.Actor, r.ActorID)
				}
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("audit page lacks some of: the erasure, the consent.granted naming all three consents, a record stored by key: %v\n%+v", seen, rows)
	}
}
