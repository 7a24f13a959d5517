package web

import (
	"net/url"
	"strings"
	"testing"
)

func TestAuditPage(t *testing.T) {
	doc, _ := render(t, samplePages()["audit"])
	rows := byID(doc, "audit-row")
	if n := rows.Length(); n != 3 {
		t.Fatalf("%d rows", n)
	}
	if got := byID(doc, "audit-counts").Eq(2).Text(); got != "2 form submissions, 1 phone call task" {
		t.Errorf("counts %q (zero counts are left out)", got)
	}
	export := mustOne(t, doc, "audit-export").AttrOr("href", "")
	u, err := url.Parse(export)
	if err != nil || u.Path != PathAuditExport || u.Query().Get("action") != "gdpr.anonymised" || u.Query().Get("from") != "2025-03-01" {
		t.Errorf("export link %q", export)
	}
	if byID(doc, "pager-prev").Length() != 0 {
		t.Errorf("a newer link on the first page")
	}
	if got := mustOne(t, doc, "pager-next").AttrOr("href", ""); got != "/admin/audit?action=gdpr.anonymised&cursor=bzI&from=2025-03-01" {
		t.Errorf("next %q", got)
	}
	if got := doc.Find(`select[name="action"] option[selected]`).AttrOr("value", ""); got != "gdpr.anonymised" {
		t.Errorf("action filter %q", got)
	}
	for _, name := range []string{"actor", "from", "to"} {
		if doc.Find(`[data-testid="audit-filter"] input[name="`+name+`"]`).Length() != 1 {
			t.Errorf("no %s filter", name)
		}
	}
}

// Actors read as names with the id on hover; consents are named; times are to the second.
func TestAuditRowsReadAtAGlance(t *testing.T) {
	doc, _ := render(t, samplePages()["audit"])
	rows := byID(doc, "audit-row")
	actor := rows.Eq(0).Find(`[data-testid="audit-actor"] a`)
	if actor.Text() != "API key “Website”" || !strings.HasPrefix(actor.AttrOr("title", ""), "key:k1") ||
		actor.AttrOr("href", "") != "/admin/audit?actor=key%3Ak1" {
		t.Errorf("actor %q title %q href %q", actor.Text(), actor.AttrOr("title", ""), actor.AttrOr("href", ""))
	}
	action := strings.ReplaceAll(rows.Eq(1).Find(`[data-testid="audit-action"]`).Text(), "\u2011", "-")
	if got := strings.Join(strings.Fields(action), " "); got != "Consent granted — primary purpose, general contact by e-mail" ||
		rows.Eq(1).Find(`[data-testid="audit-action-label"]`).AttrOr("title", "") != "consent.granted" {
		t.Errorf("consent entry reads %q", got)
	}
	tm := rows.Eq(0).Find(`[data-testid="audit-time"] time`)
	if got := strings.Join(strings.Fields(tm.Text()), " "); got != "2025-03-14 09:26:53 UTC" || tm.AttrOr("title", "") != "2025-03-14T09:26:53.000Z" {
		t.Errorf("time %q title %q", got, tm.AttrOr("title", ""))
	}
	if got := rows.Eq(0).Find(`[data-testid="audit-record"]`).AttrOr("href", ""); got != "/admin/submissions/sub-1" {
		t.Errorf("record link %q", got)
	}
	// Five ids: three shown, two behind "+2 more".
	recs := rows.Eq(2).Find(`[data-testid="audit-records"]`)
	if n := recs.Children().Filter(`[data-testid="audit-record"]`).Length(); n != AuditRecordsShown {
		t.Errorf("%d ids shown before more", n)
	}
	more := recs.Find(`[data-testid="audit-records-more"]`)
	if got := more.Find("summary").Text(); got != "+2 more" || more.Find(`[data-testid="audit-record"]`).Length() != 2 {
		t.Errorf("more %q", got)
	}
}

func TestFormatCounts(t *testing.T) {
	got := formatCounts(map[string]int{"phoneCallTasks": 1, "formSubmissions": 3, "canvassingSubmissions": 0, "zeta": 2, "alpha": 1})
	if want := "3 form submissions, 1 phone call task, alpha: 1, zeta: 2"; got != want {
		t.Errorf("formatCounts = %q, want %q", got, want)
	}
	if got := formatCounts(map[string]int{"revoked": 1}); got != "1 record" {
		t.Errorf("revoked counts read %q", got)
	}
}

func TestConsentPhrase(t *testing.T) {
	for name, want := range map[string]string{"primaryPurpose": "primary purpose",
		"generalContactEmail": "general contact by e-mail", "somethingElse": "somethingElse"} {
		if got := ConsentPhrase(name); got != want {
			t.Errorf("ConsentPhrase(%q) = %q, want %q", name, got, want)
		}
	}
}
