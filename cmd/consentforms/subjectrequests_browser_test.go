package main

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestSubjectRequestsBrowser: on the preference page (the browser's script off) the person
// asks for a copy of their data and for its erasure, and sees both filed; support staff find
// both under Requests, at desktop and phone widths, the person by keyed hash only, mark the copy
// sent and erase; the person's page then says both are done (the requests filed through that
// link, the record being anonymised) and offers no new one.
func TestSubjectRequestsBrowser(t *testing.T) {
	requireChromium(t)
	if os.Getenv("CONSENTFORMS_SCREENSHOTS") == "" {
		t.Setenv("CONSENTFORMS_SCREENSHOTS", t.TempDir())
	}
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	subscriber(t, s, k, "r1", "eve@example.org", "+447700900123")
	prefs := pathOf(t, s, recordRead(t, s, k, "r1")["preferencesUrl"])
	s.cli("staff", "create", "--email", "sup@example.org", "--password", "pass-word-123", "--role", "support", "--tenant", tn)

	person := newAdminUI(t, s)
	if _, err := chromedp.Call(person.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "preference page", person.open(prefs), 200)
	person.checkPersonPage("requests-offered")
	wantStatus(t, "ask for a copy", person.submit("request-access"), 200)
	if got := person.text("request-filed"); got != "Thank you: your request has reached us. This page shows when it is done." {
		t.Errorf("filed %q", got)
	}
	wantStatus(t, "ask for erasure", person.submit("request-erasure"), 200)
	if got := person.texts("person-request"); len(got) != 2 || !strings.HasPrefix(got[0], "You asked us to erase your data on ") || !strings.HasSuffix(got[1], "we are preparing it.") {
		t.Errorf("the person's requests %q", got)
	}
	person.checkPersonPage("requests-filed")

	staff := newAdminUI(t, s)
	wantStatus(t, "sign in", staff.signedIn("sup@example.org", "pass-word-123"), 200)
	wantStatus(t, "requests", staff.open("/admin/requests"), 200)
	for _, v := range viewports {
		staff.do(chromedp.EmulateViewport(v.w, v.h))
		staff.checkLayout("requests", v.w)
	}
	staff.do(chromedp.EmulateViewport(1280, 900))
	if got := staff.texts("request-kind"); len(got) != 2 || got[0] != "Erase their data" || got[1] != "A copy of their data" {
		t.Errorf("kinds %q", got)
	}
	if page := staff.pageText(); strings.Contains(page, "eve@") || strings.Contains(page, "+4477") {
		t.Errorf("the list shows an identifier: %s", page)
	}
	wantStatus(t, "mark the copy sent", staff.submit("request-complete"), 200)
	wantStatus(t, "erase", staff.submit("request-erase"), 200)
	staff.visible("requests-empty")
	wantStatus(t, "all requests", staff.open("/admin/requests?status=all"), 200)
	if got := staff.texts("request-status"); len(got) != 2 || !strings.HasPrefix(got[0], "Done by sup@example.org") {
		t.Errorf("statuses %q", got)
	}
	staff.checkLayout("requests-done", 1280)
	if at(getSubmission(t, s, k, "r1"), "anonymisedAt") == nil {
		t.Error("the erasure left the record")
	}

	wantStatus(t, "the page after", person.open(prefs), 200)
	if got := person.texts("person-request"); len(got) != 2 || !strings.Contains(got[0], "it was erased on ") || !strings.Contains(got[1], "it was sent to you on ") {
		t.Errorf("after the erasure the page says %q", got)
	}
	if person.present("request-access") {
		t.Error("the page still offers requests after the erasure")
	}
	person.checkPersonPage("requests-done")
}
