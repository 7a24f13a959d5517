package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserRights: a tenant admin sets a form's retention and sees how many records it
// will anonymise in the next 30 days, exports a person's data next to anonymise, lists the
// general-contact consents about to lapse and downloads them as formula-escaped CSV; a
// platform admin sets a tenant's default retention.
func TestAdminBrowserRights(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t, "CONSENTFORMS_RETENTION_EVERY=0")
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	for _, p := range []struct{ id, email, first, days string }{
		{"ada", "ada@example.org", "Ada", "5d"}, {"bob", "bob@example.org", "=HYPERLINK(\"x\")", "12d"}, {"cyd", "cyd@example.org", "Cyd", "20d"},
	} {
		submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": p.id, "email": p.email, "first_name": p.first,
			"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": p.days})
	}
	postRecord(t, s, k, canvassingPath, map[string]any{"email": "ada@example.org", "outcome": "supportive", "canvasser_id": "cv-1"})
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)

	// Retention on the form page: 7 days from creation anonymises all three within 30 days.
	wantStatus(t, "form page", u.open("/admin/forms/petition"), 200)
	if got := u.text("retention-policy"); !strings.Contains(got, "kept") {
		t.Errorf("policy before: %q", got)
	}
	u.fill("retention", "7d")
	u.do(chromedp.SetValue(sel("input-retention_from"), "created"))
	wantStatus(t, "save form", u.submit("form-save"), 200)
	u.visible("flash-success")
	if got := u.text("retention-policy"); !strings.Contains(got, "7d from created") {
		t.Errorf("policy after: %q", got)
	}
	if got := u.text("retention-due"); !strings.HasPrefix(got, "3 records") {
		t.Errorf("due in 30 days: %q", got)
	}
	u.shot("rights-01-form-retention")
	u.fill("retention", "soon")
	wantStatus(t, "bad retention", u.submit("form-save"), 422)
	u.visible("error-retention")

	// Export data, next to anonymise.
	wantStatus(t, "anonymise", u.submit("nav-anonymise"), 200)
	u.fill("email", "ADA@example.org")
	wantStatus(t, "preview", u.submit("anonymise-search-submit"), 200)
	u.visible("export-person-submit")
	u.visible("anonymise-confirm-submit")
	u.shot("rights-02-export-next-to-anonymise")
	token, err := chromedp.Run(u.ctx, chromedp.Value(chromedp.CSS(`[data-testid="export-person-form"] input[name="_csrf"]`)))
	if err != nil {
		t.Fatal(err)
	}
	st, body := u.fetch("POST", "/admin/anonymise/export", map[string]string{"_csrf": token, "email": "ada@example.org", "phone": ""})
	var export struct {
		Subject struct{ Email string }
		Records map[string][]map[string]any
	}
	if err := json.Unmarshal([]byte(body), &export); st != 200 || err != nil {
		t.Fatalf("export: %d %v %.300s", st, err, body)
	}
	if export.Subject.Email != "ada@example.org" || len(export.Records["formSubmissions"]) != 1 || len(export.Records["canvassingSubmissions"]) != 1 {
		t.Errorf("export %.500s", body)
	}

	// The re-permission list, by deadline, and its CSV.
	wantStatus(t, "re-permission", u.submit("nav-expiring"), 200)
	if got := u.count("expiring-row"); got != 3 {
		t.Errorf("%d rows, want 3", got)
	}
	if got := u.text("expiring-first-name"); got != "Ada" {
		t.Errorf("first row %q, want Ada (the earliest deadline)", got)
	}
	u.shot("rights-03-repermission")
	st, csvBody := u.fetch("GET", u.attr("expiring-export", "href"), nil)
	rows, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if st != 200 || err != nil || len(rows) != 4 {
		t.Fatalf("csv: %d %v %q", st, err, csvBody)
	}
	if rows[0][2] != "email" || rows[1][2] != "ada@example.org" || rows[2][1] != `'=HYPERLINK("x")` {
		t.Errorf("csv rows %q", rows)
	}
	wantStatus(t, "within 10 days", u.open("/admin/consents/expiring?channel=email&within=10d"), 200)
	if got := u.count("expiring-row"); got != 1 {
		t.Errorf("%d rows within 10 days, want 1", got)
	}

	// The tenant's default retention, by a platform admin.
	wantStatus(t, "sign out", u.submit("logout-button"), 200)
	wantStatus(t, "sign in root", u.signedIn("root@example.com", "root-password-1"), 200)
	wantStatus(t, "tenants", u.open("/admin/tenants"), 200)
	u.do(chromedp.SetValue(sel("input-tenant"), tn), chromedp.SetValue(sel("input-retention_from"), "consents-lapsed"))
	u.fill("retention", "2y")
	wantStatus(t, "save tenant retention", u.submit("tenant-retention-submit"), 200)
	u.visible("flash-success")
	if got := u.text("tenant-retention"); got != "2y from consents-lapsed" {
		t.Errorf("tenant retention %q", got)
	}
	u.shot("rights-04-tenant-retention")
}
