package web

import (
	"strings"
	"testing"
)

// The person search posts its term; its results link each record to its page and lead on
// to anonymisation with the term in the body.
func TestFindPerson(t *testing.T) {
	doc, html := render(t, samplePages()["submissions"])
	f := mustOne(t, doc, "find-person-form")
	if f.AttrOr("method", "") != "post" || f.AttrOr("action", "") != PathFindPerson {
		t.Errorf("find form: %s %s", f.AttrOr("method", ""), f.AttrOr("action", ""))
	}
	if strings.Contains(html, "hx-get=\""+PathFindPerson) {
		t.Errorf("the search must not go into a URL")
	}
	doc, _ = render(t, Submissions(SubmissionsPage{Layout: testLayout("Submissions", NavSubmissions)}))
	if byID(doc, "find-person-form").Length() != 0 {
		t.Errorf("find form offered to a role that may not read contact data")
	}

	doc, _ = render(t, samplePages()["find-person"])
	if got := mustOne(t, doc, "person-found").Text() + ": " + mustOne(t, doc, "person-summary").Text(); got != "2 records found: 1 form submission, 1 phone call task" {
		t.Errorf("summary %q", got)
	}
	rows := byID(doc, "person-row")
	if rows.Length() != 2 {
		t.Fatalf("%d rows", rows.Length())
	}
	links := byID(doc, "person-record-link")
	if a, b := links.Eq(0).AttrOr("href", ""), links.Eq(1).AttrOr("href", ""); a != "/admin/records/call-1?kind=phoneCallTask" || b != "/admin/submissions/sub-1" {
		t.Errorf("record links %q %q", a, b)
	}
	if rows.Eq(0).Find(`[data-status]`).Length() != 0 || rows.Eq(0).Find(".none").Length() < 3 {
		t.Errorf("a phone call task has no consents, yet shows statuses")
	}
	if got := rows.Eq(1).Find(`[data-testid="person-consent-generalContactEmail"]`).AttrOr("data-status", ""); got != StatusRevoked {
		t.Errorf("status %q", got)
	}
	if got := byID(doc, "person-anonymised").Eq(0).Text(); strings.TrimSpace(got) != "No" {
		t.Errorf("anonymised %q", got)
	}
	a := mustOne(t, doc, "person-anonymise-form")
	if a.AttrOr("action", "") != PathAnonymisePreview || a.AttrOr("method", "") != "post" ||
		a.Find(`input[type="hidden"][name="email"]`).AttrOr("value", "") != fullMail {
		t.Errorf("anonymise form")
	}
}
