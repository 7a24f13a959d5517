package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserDashboard: after a person with a granted e-mail consent is erased, the
// dashboard no longer counts them as contactable but as anonymised; the counts per record kind
// agree with what was sent and with the API's re-permission list; the trend charts show the
// same numbers as their tables, fit the page at 1280 and 1024 px, and draw no third-party
// script.
func TestAdminBrowserDashboard(t *testing.T) {
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	k := s.key(tn, "all")
	for i, p := range []struct{ email, within string }{
		{"ada@example.org", "10d"}, {"bea@example.org", "40d"}, {"cem@example.org", ""}, {"dan@example.org", "200d"},
	} {
		body := map[string]any{"form_id": "petition", "submission_id": fmt.Sprintf("s%d", i), "email": p.email, "phone_number": phoneOf(i),
			"consent_to_general_contact_email": true}
		if p.within != "" {
			body["consent_to_general_contact_deadline_interval"] = p.within
		}
		submit(t, s, k, body)
	}
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "phone-only", "phone_number": phoneOf(9),
		"consent_to_general_contact_phone": true, "consent_to_general_contact_deadline_interval": "20d"})
	postRecord(t, s, k, digitisationPath, map[string]any{"form_id": "petition", "consent_to_general_contact_email": true, "email": "paper@example.org"})
	postRecord(t, s, k, canvassingPath, map[string]any{"email": "ada@example.org", "outcome": "supportive", "canvasser_id": "cv-1"})
	postRecord(t, s, k, callsPath, map[string]any{"phone_number": phoneOf(1), "campaign_id": "camp-1", "caller_id": "c-3", "status": "completed"})

	// Ada is erased: her form submission (granted e-mail, 10 days) and her canvassing record.
	if got := erase(t, s, k, map[string]any{"email": "ada@example.org"}); got != (counts{FormSubmissions: 1, CanvassingSubmissions: 1}) {
		t.Fatalf("erasure %+v", got)
	}
	expiring := func(channel string) int {
		r := call(t, s, "GET", "/api/v1/consents/expiring?within=90d&limit=500&channel="+channel, k, nil)
		items, _ := at(r.JSON(t), "items").([]any)
		return len(items)
	}
	apiExpiring := expiring("email") + expiring("phone")

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "dashboard", u.open("/admin/"), 200)
	for testid, want := range map[string]string{
		// Records are still there (anonymised), so every kind counts them.
		"dashboard-count-formSubmissions": "5", "dashboard-count-canvassingSubmissions": "1",
		// Contactable by e-mail: bea, cem, dan (ada is erased); her record is anonymised.
		"dashboard-contactable-formSubmissions-live": "4", "dashboard-contactable-formSubmissions-generalContactEmail": "3",
		"dashboard-contactable-formSubmissions-generalContactPhone": "1", "dashboard-contactable-formSubmissions-anonymised": "1",
		"dashboard-contactable-digitisationSubmissions-generalContactEmail": "1",
		"dashboard-contactable-canvassingSubmissions-live":                  "0", "dashboard-contactable-canvassingSubmissions-anonymised": "1",
		"dashboard-contactable-phoneCallTasks-live":       "1",
		"dashboard-contactable-total-generalContactEmail": "4", "dashboard-contactable-total-anonymised": "2",
		"dashboard-consent-generalContactEmail-granted": "4",
	} {
		if got := u.text(testid); got != want {
			t.Errorf("%s = %q, want %q", testid, got, want)
		}
	}

	// Submissions per day: all eight records arrived today, the last column.
	if got := u.text("chart-submissions-caption"); !strings.Contains(got, "8 records in all") {
		t.Errorf("submissions caption %q", got)
	}
	if n := u.count("chart-submissions-row"); n != 30 {
		t.Errorf("%d days in the submissions table, want 30", n)
	}
	rowTotals := u.texts("chart-submissions-row-total")
	if len(rowTotals) != 30 || rowTotals[29] != "8" {
		t.Errorf("daily totals %q, want 8 on the last day", rowTotals)
	}
	if got := u.texts("chart-submissions-total"); len(got) != 1 || got[0] != "8" {
		t.Errorf("numbers over the bars %q, want one 8", got)
	}
	if got := strings.Join(u.texts("chart-submissions-table"), ""); !strings.Contains(got, time.Now().UTC().Format(time.DateOnly)) {
		t.Errorf("the table names no ISO date of today: %q", got)
	}
	titles, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="chart-submissions"] rect > title')].map(t => t.textContent)`))
	if err != nil || !contains(titles, time.Now().UTC().Format(time.DateOnly)+" · Form submissions: 5") {
		t.Errorf("bar titles %q, %v", titles, err)
	}

	// Expiring in the next 90 days: bea (40d), the phone-only record (20d), the digitisation
	// record has no deadline, ada's is erased, dan's lies beyond: as the API lists them.
	if apiExpiring != 2 {
		t.Errorf("the API lists %d expiring consents, want 2", apiExpiring)
	}
	if got := u.text("chart-expiring-caption"); !strings.Contains(got, strconv.Itoa(apiExpiring)+" consents in all") {
		t.Errorf("expiring caption %q, want the API's %d", got, apiExpiring)
	}
	sum := 0
	for _, v := range u.texts("chart-expiring-total") {
		n, _ := strconv.Atoi(v)
		sum += n
	}
	if sum != apiExpiring {
		t.Errorf("numbers over the expiring bars sum to %d, want %d", sum, apiExpiring)
	}
	if n, err := chromedp.Run(u.ctx, chromedp.Evaluate[int](`document.querySelectorAll('script[src^="http"]').length`)); err != nil || n != 0 {
		t.Errorf("%d third-party scripts (%v)", n, err)
	}

	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/")
		u.checkLayout("dashboard", vp.w)
	}

	// The submissions list: its total, and Ada's erased row marked, no consent shown as granted.
	u.do(chromedp.EmulateViewport(1280, 800))
	wantStatus(t, "submissions", u.open("/admin/submissions"), 200)
	if got := u.text("list-total"); got != "5 records" {
		t.Errorf("total %q, want 5 records", got)
	}
	if got := u.texts("submission-form"); len(got) != 5 || got[0] != "Petition" {
		t.Errorf("forms %q, want the form's name", got)
	}
	if n := u.count("submission-anonymised"); n != 1 {
		t.Errorf("%d rows marked anonymised, want 1", n)
	}
	cls, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-submission-id="s0"]').className + ' ' +
		document.querySelector('tr[data-submission-id="s0"] [data-testid="submission-consent-generalContactEmail"]').textContent`))
	if err != nil || cls != "anonymised —" {
		t.Errorf("Ada's row: %q, %v; want marked anonymised, her e-mail consent not shown as granted", cls, err)
	}
	wantStatus(t, "granted by e-mail", u.open("/admin/submissions?consent=generalContactEmail&status=granted"), 200)
	// The list of those who may be contacted by e-mail agrees with the dashboard: Ada's
	// erased record is not among them.
	if got := u.text("list-total"); got != "3 records" || u.present("submission-anonymised") {
		t.Errorf("filtered total %q, want the dashboard's 3 records, none anonymised", got)
	}

	// The other kinds have their lists, reached from the tabs; a record leads back to its list.
	wantStatus(t, "submissions again", u.open("/admin/submissions"), 200)
	wantStatus(t, "canvassing tab", u.submit("kind-tab-canvassingSubmission"), 200)
	if got := u.text("list-total"); got != "1 record" || u.count("submission-anonymised") != 1 {
		t.Errorf("canvassing list: %q, %d anonymised; want Ada's erased record", got, u.count("submission-anonymised"))
	}
	wantStatus(t, "phone call tab", u.submit("kind-tab-phoneCallTask"), 200)
	if got := u.text("list-total"); got != "1 record" || u.present("submission-consent-primaryPurpose") {
		t.Errorf("phone call tasks: %q; want one, without consents", got)
	}
	wantStatus(t, "phone call record", u.submit("submission-link"), 200)
	if got := u.attr("submissions-back", "href"); got != "/admin/submissions?kind=phoneCallTask" || u.text("submissions-back") != "← Phone call tasks" {
		t.Errorf("back link %q %q, want the phone call tasks list", got, u.text("submissions-back"))
	}
	wantStatus(t, "back", u.submit("submissions-back"), 200)
	wantStatus(t, "digitisation tab", u.submit("kind-tab-digitisationSubmission"), 200)
	if got := u.texts("submission-consent-generalContactEmail"); len(got) != 1 || got[0] != "Granted" {
		t.Errorf("digitisation list consents %q", got)
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open("/admin/submissions")
		u.checkLayout("submissions", vp.w)
	}
}

// texts are the texts of every element with the data-testid, in page order.
func (u *adminUI) texts(testid string) []string {
	u.t.Helper()
	out, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(
		`[...document.querySelectorAll('[data-testid=%q]')].map(e => e.textContent.trim())`, testid)))
	if err != nil {
		u.t.Fatal(err)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
