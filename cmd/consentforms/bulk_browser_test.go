package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserBulkErasure: a support user pastes a list, reviews the counts and the
// identifiers that match nothing, and submits it; they cannot approve it; a tenant admin
// approves it and watches it run to the end on the page.
func TestAdminBrowserBulkErasure(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	bulkPeople(t, s, k)
	s.cli("staff", "create", "--email", "sup@example.org", "--password", "pass-word-123", "--role", "support", "--tenant", tn)
	s.cli("staff", "create", "--email", "boss@example.org", "--password", "pass-word-123", "--role", "tenant_admin", "--tenant", tn)

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("sup@example.org", "pass-word-123"), 200)
	wantStatus(t, "anonymise", u.submit("nav-anonymise"), 200)
	wantStatus(t, "bulk", u.submit("bulk-erasure-link"), 200)
	u.visible("bulk-empty")
	// The list comes from a CSV file, read into the box by the page.
	csvFile := filepath.Join(t.TempDir(), "court-order.csv")
	if err := os.WriteFile(csvFile, []byte("email,phone\nann@example.org,+447700900001\n,+44 7700 900002\ncat@example.org,\nnobody@example.org,\nnot-an-identifier,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u.do(chromedp.SetUploadFiles(sel("input-identifiers-file"), []string{csvFile}))
	u.do(waitJS(`document.querySelector('[data-testid="input-identifiers"]').value.includes("nobody@example.org")`))
	wantStatus(t, "preview", u.submit("bulk-preview-submit"), 200)
	if got := u.text("bulk-preview-count-formSubmissions"); got != "4" {
		t.Errorf("form submissions matched: %q", got)
	}
	if got := u.text("bulk-unmatched"); !strings.Contains(got, "nobody@example.org") || strings.Contains(got, "ann@") {
		t.Errorf("unmatched: %q", got)
	}
	u.visible("bulk-invalid")
	u.shot("bulk-01-preview")
	wantStatus(t, "request", u.submit("bulk-request-submit"), 200)
	u.visible("bulk-awaiting")
	if u.present("bulk-approve") {
		t.Error("the requester is offered approval")
	}
	if got := u.text("bulk-status"); got != "Waiting for approval" {
		t.Errorf("status: %q", got)
	}
	u.shot("bulk-02-awaiting-approval")

	a := newAdminUI(t, s)
	wantStatus(t, "admin sign in", a.signedIn("boss@example.org", "pass-word-123"), 200)
	// The other tenant admin's dashboard says a request waits for them, and leads to it.
	wantStatus(t, "dashboard", a.open("/admin/"), 200)
	if got := a.text("dashboard-awaiting"); !strings.Contains(got, "1 bulk erasure request waits for your approval") ||
		!strings.Contains(got, "3 e-mail addresses, 2 phone numbers") {
		t.Errorf("dashboard awaiting: %q", got)
	}
	a.shot("bulk-02b-dashboard-awaiting")
	wantStatus(t, "request page", a.submit("dashboard-awaiting-request"), 200)
	for _, vp := range viewports {
		a.do(chromedp.EmulateViewport(vp.w, vp.h))
		// Approve and Reject side by side: one row, Reject to the right.
		side, err := chromedp.Run(a.ctx, chromedp.Evaluate[bool](`(() => {
			const ap = document.querySelector('[data-testid="bulk-approve"]').getBoundingClientRect();
			const rj = document.querySelector('[data-testid="bulk-reject"]').getBoundingClientRect();
			return Math.abs(ap.top - rj.top) < 2 && rj.left > ap.right; })()`))
		if err != nil || !side {
			t.Errorf("at %d px Approve and Reject are not side by side (%v)", vp.w, err)
		}
		a.checkLayout("bulk-decide", vp.w)
	}
	wantStatus(t, "approve", a.submit("bulk-approve"), 200)
	// The page polls its progress until the job is done.
	a.do(waitJS(`document.querySelector('[data-testid="bulk-status"]').textContent.trim() === "Done"`))
	if got := a.text("bulk-erased-formSubmissions"); got != "4" {
		t.Errorf("anonymised form submissions: %q", got)
	}
	if got := a.text("bulk-erased-canvassingSubmissions"); got != "1" {
		t.Errorf("anonymised canvassing submissions: %q", got)
	}
	a.shot("bulk-03-done")
	if r := getSubmission(t, s, k, "keep"); at(r, "anonymisedAt") != nil {
		t.Error("the bystander was erased")
	}
}
