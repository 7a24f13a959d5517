package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserErasePreview: before confirming, the erase preview lists the records the
// erasure anonymises — kind, form name (id in the tooltip), date, masked contact — and apart
// from them the records of others that only mention the person, without their contact data;
// the numbers agree with what the erasure then reports through the API's counts.
func TestAdminBrowserErasePreview(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "bob-1", "email": "bob@example.org", "phone_number": phoneOf(1),
		"consent_to_general_contact_email": true})
	postRecord(t, s, k, canvassingPath, map[string]any{"email": "bob@example.org", "outcome": "supportive", "canvasser_id": "cv-1"})
	alice(t, s, k, "alice-1", map[string]any{"referred_friend": "Bob@Example.org"})

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "anonymise", u.open("/admin/anonymise"), 200)
	u.fill("email", "bob@example.org")
	wantStatus(t, "preview", u.submit("anonymise-search-submit"), 200)

	if got := u.texts("anonymise-records-kind"); strings.Join(got, ",") != "Canvassing submission,Form submission" {
		t.Errorf("kinds of Bob's records %q, want his canvassing record, then his form submission (newest first)", got)
	}
	forms := u.texts("anonymise-records-form")
	if len(forms) != 2 || forms[1] != "Petition" {
		t.Errorf("forms %q, want the form's name Petition", forms)
	}
	if title, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](
		`document.querySelector('[data-testid="anonymise-records"] tr[data-record-id="bob-1"] [data-form-id]').title`)); err != nil || title != "petition" {
		t.Errorf("form tooltip %q, %v; want the id petition", title, err)
	}
	contacts := u.texts("anonymise-records-contact")
	if len(contacts) != 2 || !strings.Contains(contacts[1], "b***@e***.org") || strings.Contains(strings.Join(contacts, " "), "bob@example.org") {
		t.Errorf("contacts %q, want masked", contacts)
	}
	if got := u.attr("anonymise-mentions-row", "data-record-id"); got != "alice-1" {
		t.Errorf("mention %q, want Alice's record", got)
	}
	if u.present("anonymise-mentions-contact") {
		t.Error("the mention shows the contact data of its owner")
	}
	if got := u.text("anonymise-mentions-heading"); !strings.Contains(got, "only the mention is removed") {
		t.Errorf("mentions heading %q", got)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.checkLayout("erase-preview", vp.w)
	}

	got, mentions := decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"email": "bob@example.org"}))
	if got != (counts{FormSubmissions: 1, CanvassingSubmissions: 1}) || mentions != 1 {
		t.Errorf("the erasure touched %+v and %d mentions; the preview listed 2 records and 1 mention", got, mentions)
	}
}
