package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// personPageProblemsJS lists what the person would trip over on a confirmation or withdrawal
// page as loaded: a page wider than the window, a button wider than it, the first button (the
// page's main action) below the first screen, a button too small to tap, and any script,
// cookie or resource from elsewhere.
const personPageProblemsJS = `(() => {
	const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
	const out = [];
	if (document.documentElement.scrollWidth > vw) out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
	for (const [i, b] of [...document.querySelectorAll('button')].entries()) {
		const r = b.getBoundingClientRect();
		// Every button fits the width; the first (the page's main action) is in the first screen.
		if (r.left < 0 || r.right > vw || (i === 0 && r.bottom > vh)) out.push('button "' + b.textContent.trim() + '" outside ' + vw + 'x' + vh);
		if (r.height < 40) out.push('button "' + b.textContent.trim() + '" is ' + Math.round(r.height) + ' px high');
	}
	if (document.scripts.length) out.push(document.scripts.length + ' scripts');
	if (document.cookie !== '') out.push('cookie ' + document.cookie);
	for (const e of performance.getEntriesByType('resource')) {
		if (!e.name.startsWith(location.origin + '/')) out.push('loaded ' + e.name);
	}
	return out;
})()`

// checkPersonPage fails the test with the page's problems at each width, with a screenshot.
func (u *adminUI) checkPersonPage(name string) {
	u.t.Helper()
	for _, w := range []int64{375, 390, 1280} {
		u.do(chromedp.EmulateViewport(w, 800))
		problems, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](personPageProblemsJS))
		if err != nil {
			u.t.Fatal(err)
		}
		for _, p := range problems {
			u.t.Errorf("%s at %d px: %s", name, w, p)
		}
		u.save(screenshotDir(), fmt.Sprintf("person-%d-%s", w, name))
	}
}

// TestPersonPagesBrowser: the person confirms a double opt-in by its button in German (the
// form's language) — the page before, the confirmation, the used link — and, on the preference
// page its withdrawal link opens (the browser's script off), withdraws the phone alone and then
// everything, at phone and desktop widths, with no script, cookie or outside resource.
func TestPersonPagesBrowser(t *testing.T) {
	requireChromium(t)
	if os.Getenv("CONSENTFORMS_SCREENSHOTS") == "" {
		t.Setenv("CONSENTFORMS_SCREENSHOTS", t.TempDir())
	}
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--language", "de")
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("s1", "ada@example.org"))
	rec := recordRead(t, s, k, "s1")
	confirm := pathOf(t, s, consentOf(rec, "generalContactEmail")["confirmationUrl"])
	withdraw := pathOf(t, s, rec["withdrawUrl"])

	u := newAdminUI(t, s)
	wantStatus(t, "confirmation page", u.open(confirm), 200)
	if got := u.text("confirm-question"); got != "Bitte bestätigen Sie, dass Sie per E-Mail kontaktiert werden möchten." {
		t.Errorf("question %q", got)
	}
	u.checkPersonPage("confirm")
	wantStatus(t, "confirm", u.submit("confirm-button"), 200)
	if got := u.text("confirm-done"); got != "Vielen Dank: Ihre Einwilligung, per E-Mail kontaktiert zu werden, ist bestätigt." {
		t.Errorf("confirmed %q", got)
	}
	u.checkPersonPage("confirmed")
	if got := consentOf(recordRead(t, s, k, "s1"), "generalContactEmail")["status"]; got != "granted" {
		t.Errorf("after the button the consent reads %v", got)
	}
	wantStatus(t, "used link", u.open(confirm), 410)
	u.visible("link-used")
	u.checkPersonPage("used")

	// The withdrawal link of the mails opens the preference page: each consent on its own, with
	// the browser's script turned off (the page needs none).
	if _, err := chromedp.Call(u.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "preference page", u.open(withdraw), 200)
	if got := u.texts("withdraw-channel"); len(got) != 2 || !strings.HasPrefix(got[0], "Kontakt per E-Mail") || !strings.HasPrefix(got[1], "Kontakt per Telefon") {
		t.Errorf("channels %q", got)
	}
	if got := u.texts("withdraw-form"); len(got) != 1 || !strings.HasPrefix(got[0], "Ihre Teilnahme an „Petition“") {
		t.Errorf("forms %q", got)
	}
	u.checkPersonPage("preferences")
	wantStatus(t, "withdraw the phone", u.submit("withdraw-phone"), 200)
	if got := u.text("prefs-done"); got != "Erledigt: Diese Einwilligung ist widerrufen. Sonst hat sich nichts geändert." {
		t.Errorf("withdrawn %q", got)
	}
	if got := personConsents(t, s, k, "ada@example.org")["generalContact"].(map[string]any); got["email"] != "granted" || got["phone"] != "revoked" {
		t.Errorf("after withdrawing the phone the consents read %v", got)
	}
	if got := u.texts("withdraw-channel"); len(got) != 1 {
		t.Errorf("after the phone, channels %q", got)
	}
	u.checkPersonPage("preferences-phone-withdrawn")
	wantStatus(t, "withdraw everything", u.submit("withdraw-button"), 200)
	if got := u.text("prefs-done"); got != "Erledigt: Alle Einwilligungen, die Sie uns gegeben hatten, sind widerrufen." {
		t.Errorf("withdrawn %q", got)
	}
	u.visible("withdraw-nothing")
	u.checkPersonPage("preferences-all-withdrawn")
	rec = recordRead(t, s, k, "s1")
	if consentOf(rec, "generalContactEmail")["status"] != "revoked" || consentOf(rec, "primaryPurpose")["status"] != "revoked" {
		t.Errorf("after withdrawing everything the record reads %v", rec["consents"])
	}
	// In English, the form's language by default: the same page in its words.
	s.cli("form", "create", "--tenant", tn, "--form-id", "rally", "--name", "Rally for the trees")
	en := doiSubmission("en1", "eve@example.org")
	en["form_id"] = "rally"
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, en)
	wantStatus(t, "English preference page", u.open(pathOf(t, s, recordRead(t, s, k, "en1")["preferencesUrl"])), 200)
	if got := u.texts("withdraw-form"); len(got) != 1 || !strings.HasPrefix(got[0], "Your part in “Rally for the trees”") {
		t.Errorf("English forms %q", got)
	}
	if got := u.text("withdraw-button"); got != "Withdraw everything" {
		t.Errorf("English button %q", got)
	}
	u.checkPersonPage("preferences-en")
	wantStatus(t, "invalid link", u.open("/w/nonsense"), 404)
	u.visible("link-invalid")
	u.checkPersonPage("invalid")
}

// TestAdminBrowserDashboardOptIn: the dashboard counts a tenant's double opt-in requests per
// channel — one confirmed by the person, one pending, one lapsed — with the confirmation rate,
// and the pending and lapsed consents count as not granted in the status table.
func TestAdminBrowserDashboardOptIn(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	s.cli("form", "create", "--tenant", tn, "--form-id", "quick", "--name", "Quick")
	s.cli("form", "update", "--tenant", tn, "--form-id", "quick", "--double-opt-in", "email", "--confirm-within", "1s")
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email")
	lapsing := doiSubmission("lapsing", "lea@example.org")
	lapsing["form_id"] = "quick"
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, lapsing)
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("confirmed", "cora@example.org"))
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("pending", "pia@example.org"))
	confirm := pathOf(t, s, consentOf(recordRead(t, s, k, "confirmed"), "generalContactEmail")["confirmationUrl"])
	if r := call(t, s, "POST", confirm, "", nil); r.Status != 200 {
		t.Fatalf("confirm = %d", r.Status)
	}
	time.Sleep(1100 * time.Millisecond)

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "dashboard", u.open("/admin/"), 200)
	for testid, want := range map[string]string{
		"dashboard-optin-email-pending": "1", "dashboard-optin-email-confirmed": "1", "dashboard-optin-email-lapsed": "1",
		"dashboard-optin-email-rate": "33 %", "dashboard-optin-phone-pending": "0", "dashboard-optin-phone-rate": "–",
		"dashboard-consent-generalContactEmail-granted": "1", "dashboard-consent-generalContactEmail-not_granted": "2",
	} {
		if got := u.text(testid); got != want {
			t.Errorf("%s = %q; want %q", testid, got, want)
		}
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.checkLayout("dashboard-optin", vp.w)
	}
}
