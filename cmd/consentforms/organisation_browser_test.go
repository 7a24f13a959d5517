package main

import (
	"strings"
	"testing"
)

// TestOrganisationAdminBrowser: a tenant admin sets the organisation's identity on the Forms
// page (a privacy notice that is not https refused with why, what was typed kept); saved, it
// is shown again in the form and on the person's pages.
func TestOrganisationAdminBrowser(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "on")
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "forms", u.open("/admin/forms"), 200)
	u.fill("legal_name", "Friends of the Forest e.V.")
	u.fill("contact_email", "privacy@forest.example")
	u.fill("privacy_url", "http://forest.example/privacy")
	u.fill("jurisdiction", "DE")
	wantStatus(t, "refused", u.submit("organisation-save"), 422)
	if got := u.text("organisation"); !strings.Contains(got, "starting with https://") {
		t.Errorf("the refusal: %s", got)
	}
	if got := u.value(`[data-testid="input-legal_name"]`); got != "Friends of the Forest e.V." {
		t.Errorf("the typed legal name after the refusal: %q", got)
	}
	u.fill("privacy_url", "https://forest.example/privacy")
	wantStatus(t, "saved", u.submit("organisation-save"), 200)
	if got := u.value(`[data-testid="input-privacy_url"]`); got != "https://forest.example/privacy" {
		t.Errorf("the saved privacy notice reads %q", got)
	}
	u.shot("organisation")
	page := string(call(t, s, "GET", "/f/"+tn+"/petition", "", nil).Body)
	if !strings.Contains(page, "Friends of the Forest e.V.") || !strings.Contains(page, `href="https://forest.example/privacy"`) {
		t.Errorf("the hosted page does not show the organisation: %s", page)
	}
}
