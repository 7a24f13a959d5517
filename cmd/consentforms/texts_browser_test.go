package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserConsentTexts: a tenant admin publishes a new version of a consent text from
// the form's page — editor, preview with the text as the person sees it and the diff to the
// previous version of that consent and language, publish — and it is listed; a submission then
// records it, with the hash of the text as typed (browser line breaks stored as LF), and the
// record page shows the exact text. The pages fit at 1280 and 1024 px.
func TestAdminBrowserConsentTexts(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	first := publish(s, tn, "petition", "primary_purpose", "de", "Ich unterstütze die Petition.\nMeine Daten werden 2 Jahre gespeichert.")

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "form page", u.open("/admin/forms/petition"), 200)
	if n := u.count("text-version-row"); n != 1 {
		t.Fatalf("the form page lists %d text versions, want 1", n)
	}
	wantStatus(t, "editor", u.submit("texts-publish-link"), 200)
	u.do(chromedp.SetValue(sel("input-consent"), "primaryPurpose"))
	u.fill("lang", "de")
	newText := "Ich unterstütze die Petition.\nMeine Daten werden 1 Jahr gespeichert."
	u.fill("text", newText)
	wantStatus(t, "preview", u.submit("text-preview-submit"), 200)
	if got := u.text("text-preview"); got != newText {
		t.Errorf("preview shows %q, want %q", got, newText)
	}
	if got := strings.Join(u.texts("diff-removed"), "|"); !strings.Contains(got, "2 Jahre") || strings.Contains(got, "Petition") {
		t.Errorf("removed lines %q, want only the one with 2 Jahre", got)
	}
	if got := strings.Join(u.texts("diff-added"), "|"); !strings.Contains(got, "1 Jahr") {
		t.Errorf("added lines %q", got)
	}
	if !strings.Contains(u.text("text-diff-previous"), str(first, "version")) {
		t.Errorf("the diff does not name the previous version %v: %q", first["version"], u.text("text-diff-previous"))
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.checkLayout("consent-text-preview", vp.w)
	}
	wantStatus(t, "publish", u.submit("text-publish"), 200)
	if n := u.count("text-version-row"); n != 2 {
		t.Fatalf("after publishing the form page lists %d versions, want 2", n)
	}
	u.checkLayout("form-consent-texts", 1024)

	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "after", "email": "ada@example.org",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y"})
	text := at(getSubmission(t, s, k, "after"), "consents.primaryPurpose.text").(map[string]any)
	if text["hash"] != sha(newText) || text["version"] == first["version"] || text["language"] != "de" {
		t.Errorf("the submission recorded %v; want the new version with the hash of the text as typed (%s)", text, sha(newText))
	}
	wantStatus(t, "record page", u.open("/admin/submissions/after"), 200)
	if got := u.text("consent-primaryPurpose-text-body"); got != newText {
		t.Errorf("the record page shows %q, want the exact text %q", got, newText)
	}
	u.do(chromedp.EmulateViewport(1280, 800))
	u.open("/admin/submissions/after")
	u.checkLayout("record-consent-text", 1280)
}
