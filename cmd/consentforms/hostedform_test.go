package main

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// hostedSubmissionID reads the page's submission id (its hidden field).
var hostedSubmissionID = regexp.MustCompile(`name="submission_id" value="([^"]+)"`)

func postForm(t *testing.T, s *testServer, path string, v url.Values) response {
	t.Helper()
	return call(t, s, "POST", path, "", v.Encode(), "Content-Type: application/x-www-form-urlencoded")
}

// TestHostedFormWithoutScript: a form whose hosted page is on and allows the no-script
// fallback renders its fields and consents in its language under a strict CSP, takes a plain
// HTML post without the challenge (marked unchallenged), shows a refusal next to its field,
// thanks a filled honeypot without storing, and an erasure afterwards removes what it stored.
func TestHostedFormWithoutScript(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	s.cli("form", "create", "--tenant", tn, "--form-id", "no-page")
	if r := call(t, s, "GET", "/f/"+tn+"/no-page", "", nil); r.Status != 404 {
		t.Errorf("a form whose hosted page is off: answered %d, want 404", r.Status)
	}
	page := "/f/" + tn + "/petition"
	set := s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--language", "de", "--contact-for", "P6M",
		"--hosted-page", "on", "--allow-no-js", "on")
	if set["contactFor"] != "P6M" || set["primaryFor"] != tenants.DefaultPrimaryFor || set["hostedPage"] != "on" || set["allowNoJs"] != "on" ||
		set["confirmWithin"] != "7d" || set["consentSource"] != "web:petition" {
		t.Errorf("form update printed %v; want contactFor P6M, the default primaryFor and confirmWithin, both public settings on", set)
	}
	if _, err := s.cliErr("form", "update", "--tenant", tn, "--form-id", "petition", "--primary-for", "soon"); err == nil {
		t.Error("form update took --primary-for soon")
	}
	if _, err := s.cliErr("form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "maybe"); err == nil {
		t.Error("form update took --hosted-page maybe")
	}
	r := call(t, s, "GET", page, "", nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", page, r.Status, r.Body)
	}
	html := string(r.Body)
	for _, want := range []string{`lang="de"`, `name="email"`, `type="email"`, `<legend>Ihre Einwilligung</legend>`, `name="consent_to_primary_purpose"`,
		`name="consent_to_general_contact_email"`, `name="_gotcha"`, `Gültig bis`, `aria-live`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if r.Header.Get("Set-Cookie") != "" {
		t.Error("the page sets a cookie")
	}
	if strings.Contains(html, "http://") || strings.Contains(html, "https://") {
		t.Error("the page refers to another origin")
	}
	sid := hostedSubmissionID.FindStringSubmatch(html)[1]
	stored := "/api/v1/forms/submissions/" + ops.PublicSubmissionID("petition", sid)
	rd := s.key(tn, "submissions:read,gdpr:anonymise")

	// A wrong address: 400, the form again with the error beside the e-mail field.
	bad := postForm(t, s, page, url.Values{"submission_id": {sid}, "email": {"not-an-address"}, "consent_to_general_contact_email": {"on"}})
	if bad.Status != 400 || !regexp.MustCompile(`data-testid="error-email">[^<]*E-Mail-Adresse`).Match(bad.Body) ||
		!strings.Contains(string(bad.Body), `aria-invalid="true"`) || !strings.Contains(string(bad.Body), `value="not-an-address"`) {
		t.Errorf("bad address: %d %s", bad.Status, bad.Body)
	}
	if g := call(t, s, "GET", stored, rd, nil); g.Status != 404 {
		t.Errorf("a refused post stored %s: %d", sid, g.Status)
	}
	// The honeypot: thanked, nothing stored.
	trap := postForm(t, s, page, url.Values{"submission_id": {"web-trap"}, "email": {"bot@example.org"}, "consent_to_general_contact_email": {"on"}, "_gotcha": {"x"}})
	if trap.Status != 200 || !strings.Contains(string(trap.Body), `data-testid="form-thanks"`) {
		t.Errorf("honeypot: %d %s", trap.Status, trap.Body)
	}
	if g := call(t, s, "GET", "/api/v1/forms/submissions/"+ops.PublicSubmissionID("petition", "web-trap"), rd, nil); g.Status != 404 {
		t.Errorf("the honeypot's post was stored: %d", g.Status)
	}
	// The right address: thanked, stored with the form's consent duration, once.
	for i := 0; i < 2; i++ {
		ok := postForm(t, s, page, url.Values{"submission_id": {sid}, "first_name": {"Ada"}, "email": {"ada@example.org"},
			"consent_to_general_contact_email": {"on"}, "consent_to_primary_purpose": {"on"}})
		if ok.Status != 200 || !strings.Contains(string(ok.Body), `data-testid="form-thanks"`) {
			t.Fatalf("post %d: %d %s", i, ok.Status, ok.Body)
		}
	}
	got := call(t, s, "GET", stored, rd, nil)
	if got.Status != 200 || str(got.JSON(t), "contact.email") != "ada@example.org" || str(got.JSON(t), "consents.generalContactEmail.status") != "granted" {
		t.Fatalf("stored: %d %s", got.Status, got.Body)
	}
	if got.JSON(t)["unchallenged"] != true {
		t.Errorf("a post without the challenge is not marked unchallenged: %s", got.Body)
	}
	// The deadline is the one form update set: six months, not the default two years.
	if until, err := time.Parse(time.RFC3339, str(got.JSON(t), "consents.generalContactEmail.deadline")); err != nil ||
		until.After(time.Now().AddDate(0, 7, 0)) || until.Before(time.Now().AddDate(0, 5, 0)) {
		t.Errorf("e-mail consent deadline %q (%v); want about six months from now", str(got.JSON(t), "consents.generalContactEmail.deadline"), err)
	}
	if c := erase(t, s, rd, map[string]any{"email": "ada@example.org"}); c.FormSubmissions != 1 {
		t.Errorf("erasure counts %+v", c)
	}
	if after := string(call(t, s, "GET", stored, rd, nil).Body); strings.Contains(after, "ada@example.org") || strings.Contains(after, "Ada") {
		t.Errorf("after erasure: %s", after)
	}
	// A closed or unknown form: 404.
	if r := call(t, s, "GET", "/f/"+tn+"/nope", "", nil); r.Status != 404 {
		t.Errorf("unknown form: %d", r.Status)
	}
}
