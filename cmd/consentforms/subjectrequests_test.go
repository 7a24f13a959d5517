package main

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var requestPath = regexp.MustCompile(`/admin/requests/(sr_[0-9a-f]+)/(export|complete)`)

// TestDataSubjectRequests: the preference page files "send me a copy" and "erase my data"
// (audited as the person's, a repeat while one is open files nothing, an unknown kind is 400);
// support staff see each with its time and source and the person by keyed hash only, download
// the copy (the access export of the person's records), mark it sent, and carry out the
// erasure (the person's records anonymised, a mention in another's removed); a request done is
// 409; the person's page shows each request's state, after the erasure too; a viewer cannot
// see the list.
func TestDataSubjectRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	subscriber(t, s, k, "p1", "eve@example.org", "+447700900123")
	subscriber(t, s, k, "p2", "eve@example.org", "")
	alice(t, s, k, "names-eve", map[string]any{"referred_friend": "eve@example.org"})
	prefs := pathOf(t, s, recordRead(t, s, k, "p1")["preferencesUrl"])
	file := func(kind string) response {
		return call(t, s, "POST", prefs, "", "request="+kind, "Content-Type: application/x-www-form-urlencoded")
	}

	if page := string(call(t, s, "GET", prefs, "", nil).Body); !strings.Contains(page, `data-testid="request-access"`) || !strings.Contains(page, `data-testid="request-erasure"`) {
		t.Fatalf("the page offers no requests: %s", page)
	}
	r := file("access")
	assertPersonPage(t, r, 200)
	if page := string(r.Body); !strings.Contains(page, `data-testid="request-filed"`) || !strings.Contains(page, `data-kind="access" data-status="open"`) {
		t.Errorf("after filing: %s", page)
	}
	assertPersonPage(t, file("access"), 200)
	if r := file("everything"); r.Status != 400 {
		t.Errorf("an unknown request: %d", r.Status)
	}
	assertPersonPage(t, file("erasure"), 200)
	filed := auditOf(t, s, tn, "subject_request.filed")
	if len(filed) != 2 {
		t.Fatalf("filed %d audit entries, want 2 (the repeat files nothing): %+v", len(filed), filed)
	}
	for _, e := range filed {
		if e.Actor != "subject" || e.Subject == "" || !strings.Contains(e.Detail, "via preference page") || strings.Contains(e.Detail, "eve") {
			t.Errorf("filed entry %+v", e)
		}
	}

	for _, u := range []struct{ email, role string }{{"sup@example.org", "support"}, {"view@example.org", "viewer"}} {
		s.cli("staff", "create", "--email", u.email, "--password", "pass-word-123", "--role", u.role, "--tenant", tn)
	}
	viewer := newAdminClient(t, s)
	viewer.signIn("view@example.org", "pass-word-123")
	if st, _ := viewer.get("/admin/requests"); st != 403 {
		t.Errorf("a viewer's list: %d", st)
	}
	sup := newAdminClient(t, s)
	sup.signIn("sup@example.org", "pass-word-123")
	st, list := sup.get("/admin/requests")
	if st != 200 || strings.Count(list, `data-testid="request-row"`) != 2 || strings.Contains(list, "eve@") || strings.Contains(list, "+4477") ||
		!strings.Contains(list, filed[0].Subject[:12]) || !strings.Contains(list, "preference page") {
		t.Fatalf("the staff list: %d\n%s", st, list)
	}
	ids := map[string]string{}
	for _, m := range requestPath.FindAllStringSubmatch(list, -1) {
		if m[2] == "export" {
			ids["access"] = m[1]
		} else if strings.Contains(list, m[0]+`">`) && ids["access"] != m[1] {
			ids["erasure"] = m[1]
		}
	}
	if ids["access"] == "" || ids["erasure"] == "" {
		t.Fatalf("request ids %v in\n%s", ids, list)
	}
	st, copyOf, _ := sup.post("/admin/requests/"+ids["access"]+"/export", nil)
	if st != 200 || !strings.Contains(copyOf, `"p1"`) || !strings.Contains(copyOf, `"p2"`) || strings.Contains(copyOf, `"names-eve"`) {
		t.Errorf("the copy: %d %s", st, copyOf)
	}
	if st, _, loc := sup.post("/admin/requests/"+ids["access"]+"/complete", nil); st != 303 || loc != "/admin/requests" {
		t.Errorf("marking the copy sent: %d %s", st, loc)
	}
	if st, _, _ := sup.post("/admin/requests/"+ids["access"]+"/complete", nil); st != 409 {
		t.Errorf("marking it again: %d, want 409", st)
	}
	if page := string(call(t, s, "GET", prefs, "", nil).Body); !strings.Contains(page, `data-kind="access" data-status="done"`) || !strings.Contains(page, `data-kind="erasure" data-status="open"`) {
		t.Errorf("the page after the copy: %s", page)
	}
	if st, _, _ := sup.post("/admin/requests/"+ids["erasure"]+"/complete", nil); st != 303 {
		t.Fatalf("carrying out the erasure: %d", st)
	}
	for _, id := range []string{"p1", "p2"} {
		if at(getSubmission(t, s, k, id), "anonymisedAt") == nil {
			t.Errorf("%s not anonymised", id)
		}
	}
	if r := getSubmission(t, s, k, "names-eve"); at(r, "anonymisedAt") != nil || at(r, "payload.referred_friend") != nil {
		t.Errorf("the record that mentions her: %v", r)
	}
	r = call(t, s, "GET", prefs, "", nil)
	if page := string(r.Body); !strings.Contains(page, `data-kind="erasure" data-status="done"`) || strings.Contains(page, `data-testid="request-access"`) {
		t.Errorf("the page after the erasure: %d %s", r.Status, page)
	}
	if st, _, _ := sup.post("/admin/requests/"+ids["erasure"]+"/complete", url.Values{}); st != 409 {
		t.Errorf("erasing again: %d, want 409", st)
	}
	done := auditOf(t, s, tn, "subject_request.completed")
	if len(done) != 2 || !strings.HasPrefix(done[0].Actor, "staff:") {
		t.Errorf("completed entries %+v", done)
	}
	if st, all := sup.get("/admin/requests?status=all"); st != 200 || strings.Count(all, `data-status="done"`) != 2 || !strings.Contains(all, "sup@example.org") {
		t.Errorf("all requests: %d\n%s", st, all)
	}
}
