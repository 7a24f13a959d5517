package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// personPageProblemsJS lists what the person would trip over on a confirmation or withdrawal
// page as loaded: a page wider than the window, the one button outside the window or too small
// to tap, and any script, cookie or resource from elsewhere.
const personPageProblemsJS = `(() => {
	const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
	const out = [];
	if (document.documentElement.scrollWidth > vw) out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
	for (const b of document.querySelectorAll('button')) {
		const r = b.getBoundingClientRect();
		if (r.left < 0 || r.right > vw || r.bottom > vh) out.push('button "' + b.textContent.trim() + '" outside ' + vw + 'x' + vh);
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
	for _, w := range []int64{375, 1280} {
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
// form's language) — the page before, the confirmation, the used link — and withdraws by the
// withdrawal page's button, at phone and desktop widths, with no script, cookie or outside
// resource.
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

	wantStatus(t, "withdrawal page", u.open(withdraw), 200)
	if got := u.texts("withdraw-channel"); len(got) != 2 || got[0] != "E-Mail" || got[1] != "Telefon" {
		t.Errorf("channels %q", got)
	}
	u.checkPersonPage("withdraw")
	wantStatus(t, "withdraw", u.submit("withdraw-button"), 200)
	if got := u.text("withdraw-done"); got != "Ihre Einwilligung ist widerrufen: Sie werden nicht mehr per E-Mail und Telefon kontaktiert." {
		t.Errorf("withdrawn %q", got)
	}
	u.checkPersonPage("withdrawn")
	if got := personConsents(t, s, k, "ada@example.org")["generalContact"].(map[string]any); got["email"] != "revoked" || got["phone"] != "revoked" {
		t.Errorf("after withdrawal the consents read %v", got)
	}
	wantStatus(t, "invalid link", u.open("/w/nonsense"), 404)
	u.visible("link-invalid")
	u.checkPersonPage("invalid")
}
