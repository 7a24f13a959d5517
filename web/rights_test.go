package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

func TestExpiringPage(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	p := ExpiringPage{Layout: testLayout("Re-permission", NavExpiring), Filter: ExpiringFilter{Channel: "phone", Within: "14d", FormID: "petition"},
		Forms: []Option{{Value: "petition", Label: "petition"}},
		Rows: []ExpiringRow{{SubmissionID: "s1", Kind: KindFormSubmission, FormID: "petition", Contact: "+4915112345678", FirstName: "Ada", Deadline: t0},
			{SubmissionID: "c1", Kind: KindCanvassing, Contact: "+4915100000000", Deadline: t0.Add(time.Hour)}},
		NextCursor: "abc"}
	doc, _ := render(t, Expiring(p))
	if n := byID(doc, "expiring-row").Length(); n != 2 {
		t.Fatalf("%d rows", n)
	}
	if got := byID(doc, "expiring-first-name").Eq(1).Text(); got != "—" {
		t.Errorf("missing first name shows %q", got)
	}
	if href := byID(doc, "expiring-record").Eq(1).AttrOr("href", ""); href != RecordPath(KindCanvassing, "c1") {
		t.Errorf("record link %q", href)
	}
	next, _ := url.Parse(mustOne(t, doc, "expiring-next").AttrOr("href", ""))
	if next.Path != PathExpiring || next.Query().Get("cursor") != "abc" || next.Query().Get("channel") != "phone" || next.Query().Get("form") != "petition" {
		t.Errorf("next link %q keeps neither cursor nor filter", next)
	}
	csv, _ := url.Parse(mustOne(t, doc, "expiring-export").AttrOr("href", ""))
	if csv.Path != PathExpiringCSV || csv.Query().Get("within") != "14d" || csv.Query().Has("cursor") {
		t.Errorf("CSV link %q", csv)
	}
	p.Rows, p.NextCursor = nil, ""
	doc, _ = render(t, Expiring(p))
	mustOne(t, doc, "expiring-empty")
	if byID(doc, "expiring-next").Length() != 0 {
		t.Errorf("a next link on the last page")
	}
}

func TestRetentionOnFormPage(t *testing.T) {
	due := int64(12)
	p := FormEditPage{Layout: testLayout("Form petition", NavForms), Form: FormInput{ID: "petition", Retention: "2y", RetentionFrom: RetentionFromConsentsLapsed},
		CanEdit: true, RetentionDue: &due}
	doc, _ := render(t, FormEdit(p))
	if got := mustOne(t, doc, "retention-policy").Text(); !strings.Contains(got, "2y from consents-lapsed") {
		t.Errorf("policy %q", got)
	}
	if got := mustOne(t, doc, "retention-due").Text(); !strings.HasPrefix(got, "12 records") {
		t.Errorf("due %q", got)
	}
	if v := doc.Find(`input[name="retention"]`).AttrOr("value", ""); v != "2y" {
		t.Errorf("retention input %q", v)
	}
	if v := doc.Find(`select[name="retention_from"] option[selected]`).AttrOr("value", ""); v != RetentionFromConsentsLapsed {
		t.Errorf("retention basis %q", v)
	}
	if n := doc.Find("h2, legend").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.TrimSpace(s.Text()) == "Retention" }).Length(); n != 1 {
		t.Errorf("an editor sees %d Retention headings, want one", n)
	}
	one := int64(1)
	p.RetentionDue = &one
	doc, _ = render(t, FormEdit(p))
	if got := mustOne(t, doc, "retention-due").Text(); !strings.HasPrefix(got, "1 record will") {
		t.Errorf("due %q", got)
	}
	p.CanEdit = false
	doc, _ = render(t, FormEdit(p))
	if byID(doc, "retention-summary").Length() != 1 || byID(doc, "retention-fields").Length() != 0 {
		t.Errorf("a viewer sees no retention summary")
	}
	p.New, p.RetentionDue = true, nil
	doc, _ = render(t, FormEdit(p))
	if byID(doc, "retention-summary").Length() != 0 {
		t.Errorf("a new form shows a retention summary")
	}
}

func TestExportNextToAnonymise(t *testing.T) {
	p := AnonymisePreviewPage{Layout: testLayout("Anonymise: review", NavAnonymise), Email: "a@example.org",
		Counts: RecordCounts{FormSubmissions: 2}, CanExport: true}
	doc, _ := render(t, AnonymisePreview(p))
	f := mustOne(t, doc, "export-person-form")
	if f.AttrOr("action", "") != PathExportPerson || f.Find(`input[name="email"]`).AttrOr("value", "") != "a@example.org" ||
		f.Find(`input[name="_csrf"]`).Length() != 1 {
		t.Errorf("export form %v", f.Nodes)
	}
	p.CanExport = false
	doc, _ = render(t, AnonymisePreview(p))
	if byID(doc, "export-person-form").Length() != 0 {
		t.Errorf("export offered without the permission")
	}
}

// A field holding a time (a canvassing record's visited_at) reads like every other time; a
// masked one stays masked.
func TestFieldTimesFormatted(t *testing.T) {
	fields := []PayloadField{{Key: "visited_at", Value: "2026-03-01T10:15:30.123+01:00"}, {Key: "note", Value: "2026"},
		{Key: "secret_at", Value: "2026-03-01T10:15:30Z", Personal: true}}
	doc, _ := render(t, fieldTable(fields, false, "f"))
	values := byID(doc, "f-value")
	if got := strings.Join(strings.Fields(values.Eq(0).Text()), " "); got != "2026-03-01 09:15:30 UTC" {
		t.Errorf("visited_at reads %q", got)
	}
	if values.Eq(0).Find("time").Length() != 1 || strings.TrimSpace(values.Eq(1).Text()) != "2026" {
		t.Errorf("fields %q", values.Text())
	}
	if got := values.Eq(2).Text(); strings.Contains(got, "2026") {
		t.Errorf("a masked time shows %q", got)
	}
}
