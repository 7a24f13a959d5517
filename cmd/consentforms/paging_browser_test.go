package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminBrowserListPaging: the record lists and the audit log page by position. A staff
// member walks a filtered list older and back newer and sees every record once, in order,
// with the filter kept; a record arriving meanwhile does not push a row onto the next page
// twice; an old ?page= link lands on the first page of the same filter.
func TestAdminBrowserListPaging(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	s.cli("form", "create", "--tenant", tn, "--form-id", "newsletter", "--name", "Newsletter")
	k := s.key(tn, "all")
	// 60 petition submissions (many share a millisecond: ties a page boundary falls between),
	// 3 of another form that the filter leaves out, 30 canvassing records.
	for i := range 60 {
		submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": fmt.Sprintf("p%02d", i), "email": fmt.Sprintf("p%d@example.org", i),
			"consent_to_general_contact_email": true})
	}
	for i := range 3 {
		submit(t, s, k, map[string]any{"form_id": "newsletter", "submission_id": fmt.Sprintf("n%d", i), "email": fmt.Sprintf("n%d@example.org", i),
			"consent_to_general_contact_email": true})
	}
	for i := range 30 {
		postRecord(t, s, k, canvassingPath, map[string]any{"email": fmt.Sprintf("c%d@example.org", i), "outcome": "supportive", "canvasser_id": "cv-1"})
	}

	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	list := "/admin/submissions?form=petition"
	wantStatus(t, "petition list", u.open(list), 200)
	if got := u.text("list-total"); got != "60 records" {
		t.Errorf("total %q, want 60 records", got)
	}
	if u.present("pager-prev") {
		t.Errorf("the first page links to newer rows")
	}
	var pages [][]string
	for range 5 {
		ids := u.texts("submission-link")
		pages = append(pages, ids)
		if !u.present("pager-next") {
			break
		}
		older := u.attr("pager-next", "href")
		if q := mustQuery(t, older); q.Get("form") != "petition" || q.Get("cursor") == "" || q.Has("page") {
			t.Errorf("older link %q: the filter and a cursor, no page number", older)
		}
		if len(pages) == 1 {
			// A record arrives between the pages: the next page still starts after the last
			// row seen, so nothing is shown twice and nothing skipped.
			submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "late", "email": "late@example.org", "consent_to_general_contact_email": true})
		}
		wantStatus(t, "older", u.open(older), 200)
		if !u.present("pager-prev") {
			t.Errorf("page %d has no link to newer rows", len(pages)+1)
		}
		if len(pages) == 1 {
			u.shot("paging-1280-submissions-older")
		}
	}
	if got := fmt.Sprint(lens(pages)); got != "[25 25 10]" {
		t.Errorf("page sizes %s, want [25 25 10]", got)
	}
	all := slices.Concat(pages...)
	want := make([]string, 60)
	for i := range want {
		want[i] = fmt.Sprintf("p%02d", 59-i)
	}
	if !slices.Equal(all, want) {
		t.Errorf("walked %v, want each of the 60 once, newest first: %v", all, want)
	}
	// Newer from the last page: the middle page again; newer again: the first page as it was
	// seen, and as the late record is newer still, a link to it; newer once more: the first
	// page as it is now, the late record on top, and no link to newer rows.
	wantStatus(t, "newer", u.open(u.attr("pager-prev", "href")), 200)
	if got := u.texts("submission-link"); !slices.Equal(got, pages[1]) {
		t.Errorf("newer than the last page: %v, want %v", got, pages[1])
	}
	wantStatus(t, "newer again", u.open(u.attr("pager-prev", "href")), 200)
	if got := u.texts("submission-link"); !slices.Equal(got, pages[0]) || !u.present("pager-prev") {
		t.Errorf("newer than the middle page: %v, want %v and a link to the late record", got, pages[0])
	}
	wantStatus(t, "newest", u.open(u.attr("pager-prev", "href")), 200)
	if got := u.texts("submission-link"); len(got) != 25 || got[0] != "late" || !slices.Equal(got[1:], pages[0][:24]) || u.present("pager-prev") {
		t.Errorf("back at the top: %v, want the late record and the first page", got)
	}
	if got := u.text("list-total"); got != "61 records" {
		t.Errorf("total %q, want 61 records", got)
	}

	// An old numbered link lands on the first page of its filter; a broken cursor too.
	for _, old := range []string{"/admin/submissions?form=petition&page=3", "/admin/submissions?form=petition&cursor=not-a-cursor"} {
		wantStatus(t, old, u.open(old), 200)
		if loc := u.location(); loc != s.URL+list {
			t.Errorf("%s lands on %s, want %s", old, loc, list)
		}
	}

	// Another kind's list pages the same way.
	wantStatus(t, "canvassing", u.open("/admin/submissions?kind=canvassingSubmission"), 200)
	first := u.texts("submission-link")
	if !u.present("pager-next") {
		t.Fatalf("canvassing list %q, %d rows, no older link", u.text("list-total"), len(first))
	}
	wantStatus(t, "canvassing, older", u.open(u.attr("pager-next", "href")), 200)
	second := u.texts("submission-link")
	if len(first) != 25 || len(second) != 5 || slices.ContainsFunc(second, func(id string) bool { return slices.Contains(first, id) }) || u.present("pager-next") {
		t.Errorf("canvassing pages %v / %v, want 25 and the other 5", first, second)
	}
	if q := mustQuery(t, u.location()); q.Get("kind") != "canvassingSubmission" {
		t.Errorf("the canvassing list's older page %s lost its kind", u.location())
	}

	// The audit log, filtered to the granted consents (64: 61 petition, 3 newsletter),
	// pages 50 and 14, and back.
	wantStatus(t, "audit", u.open("/admin/audit?action=consent.granted"), 200)
	top := u.texts("audit-row")
	if !u.present("pager-next") {
		t.Fatalf("audit log of %d rows, no older link: %s", len(top), u.pageText())
	}
	wantStatus(t, "audit, older", u.open(u.attr("pager-next", "href")), 200)
	rest := u.texts("audit-row")
	if len(top) != 50 || len(rest) != 14 || u.present("pager-next") {
		t.Errorf("audit pages of %d and %d rows, want 50 and 14", len(top), len(rest))
	}
	if q := mustQuery(t, u.location()); q.Get("action") != "consent.granted" {
		t.Errorf("the audit log's older page %s lost its filter", u.location())
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open(strings.TrimPrefix(u.location(), s.URL))
		u.checkLayout("audit-older", vp.w)
	}
	wantStatus(t, "audit, newer", u.open(u.attr("pager-prev", "href")), 200)
	if got := u.texts("audit-row"); !slices.Equal(got, top) || u.present("pager-prev") {
		t.Errorf("newer than the second audit page: %d rows, not the first page", len(got))
	}
	for _, vp := range viewports {
		u.do(chromedp.EmulateViewport(vp.w, vp.h))
		u.open(list)
		u.open(u.attr("pager-next", "href"))
		u.checkLayout("submissions-older", vp.w)
	}
}

func lens(pages [][]string) []int {
	out := make([]int, len(pages))
	for i, p := range pages {
		out[i] = len(p)
	}
	return out
}

// location is the address the tab shows.
func (u *adminUI) location() string {
	u.t.Helper()
	loc, err := chromedp.Run(u.ctx, chromedp.Location())
	if err != nil {
		u.t.Fatal(err)
	}
	return loc
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	return u.Query()
}
