package main

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// bulkPeople stores, in a tenant, records of several people: some found by e-mail, some by
// phone, one by both, a canvassing record, and a bystander.
func bulkPeople(t *testing.T, s *testServer, k string) {
	t.Helper()
	subscriber(t, s, k, "a1", "ann@example.org", "+447700900001")
	subscriber(t, s, k, "a2", "ann@example.org", "")
	subscriber(t, s, k, "b1", "", "+447700900002")
	subscriber(t, s, k, "c1", "cat@example.org", "")
	subscriber(t, s, k, "keep", "keep@example.org", "+447700900009")
	postRecord(t, s, k, canvassingPath, map[string]any{"phone_number": "+447700900002", "outcome": "supportive", "canvasser_id": "cv-1"})
	// Alice's record names Cat: a mention, not Cat's record.
	alice(t, s, k, "names-cat", map[string]any{"referred_friend": "cat@example.org"})
}

// bulkList is what staff paste: a CSV with a header, repeats, an unknown person and a line
// that is neither an address nor a number.
const bulkList = "email,phone\nann@example.org,+447700900001\nANN@example.org\n+44 7700 900002\ncat@example.org;nobody@example.org\nnot-an-identifier\n"

var bulkIDPath = regexp.MustCompile(`/admin/bulk-erasure/(be_[0-9a-f]+)`)

// TestBulkErasureFourEyes: a bulk erasure runs only after a tenant admin other than the
// requester approves it, and anonymises exactly what single erasures of its identifiers do.
// The audit log holds the request, the decision and the counts, never an identifier.
func TestBulkErasureFourEyes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, twin := openTenant(s), openTenant(s)
	k, kt := s.key(tn, "all"), s.key(twin, "all")
	bulkPeople(t, s, k)
	bulkPeople(t, s, kt)
	for _, u := range []struct{ email, role string }{{"sup@example.org", "support"}, {"boss@example.org", "tenant_admin"}, {"other@example.org", "tenant_admin"}} {
		s.cli("staff", "create", "--email", u.email, "--password", "pass-word-123", "--role", u.role, "--tenant", tn)
	}
	sup, boss, other := newAdminClient(t, s), newAdminClient(t, s), newAdminClient(t, s)
	sup.signIn("sup@example.org", "pass-word-123")
	boss.signIn("boss@example.org", "pass-word-123")
	other.signIn("other@example.org", "pass-word-123")

	// Preview: counts per kind and what matches nothing.
	sup.get("/admin/bulk-erasure")
	st, body, _ := sup.post("/admin/bulk-erasure/preview", url.Values{"identifiers": {bulkList}})
	if st != 200 || !strings.Contains(body, "nobody@example.org") || !strings.Contains(body, "not-an-identifier") ||
		!strings.Contains(body, `data-testid="bulk-preview-count-formSubmissions">4<`) ||
		!strings.Contains(body, `data-testid="bulk-preview-count-canvassingSubmissions">1<`) ||
		!strings.Contains(body, "1 record of someone else mentions them") {
		t.Fatalf("preview: %d\n%s", st, body)
	}
	if st, _, _ := sup.post("/admin/bulk-erasure/preview", url.Values{"identifiers": {strings.Repeat("x\n", 3)}}); st != 422 {
		t.Errorf("a list without identifiers: %d, want 422", st)
	}
	st, _, loc := sup.post("/admin/bulk-erasure", url.Values{"identifiers": {bulkList}})
	m := bulkIDPath.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("request: %d %q", st, loc)
	}
	page := m[0]

	// Nobody but a second tenant admin can start it: the support user lacks the role, and
	// an admin cannot approve their own request.
	sup.get(page)
	if st, _, _ := sup.post(page+"/approve", nil); st != 403 {
		t.Errorf("support approves: %d, want 403", st)
	}
	boss.get("/admin/bulk-erasure")
	_, _, bossLoc := boss.post("/admin/bulk-erasure", url.Values{"identifiers": {"cat@example.org"}})
	boss.get(bossLoc)
	if st, body, _ := boss.post(bossLoc+"/approve", nil); st != 409 || !strings.Contains(body, "own request") {
		t.Errorf("self-approval: %d\n%s", st, body)
	}
	if _, body := sup.get(page); !strings.Contains(body, "Waiting for approval") {
		t.Errorf("request page before approval:\n%s", body)
	}
	if r := getSubmission(t, s, k, "a1"); at(r, "anonymisedAt") != nil {
		t.Fatalf("erased before approval: %v", r)
	}
	other.get(bossLoc)
	if st, _, _ := other.post(bossLoc+"/reject", nil); st != 303 {
		t.Errorf("reject: %d", st)
	}

	other.get(page)
	if st, _, _ := other.post(page+"/approve", nil); st != 303 {
		t.Fatalf("approve: %d", st)
	}
	if st, _, _ := boss.post(page+"/approve", nil); st != 409 {
		t.Errorf("a second approval: %d, want 409", st)
	}
	var done string
	for i := 0; i < 400; i++ { // a hang guard, not a timing assertion
		if _, done = other.get(page); strings.Contains(done, "bulk-erased-formSubmissions") && strings.Contains(done, ">Done<") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(done, ">Done<") {
		t.Fatalf("never done:\n%s", done)
	}

	// The same identifiers erased one by one in the twin tenant.
	sum, mentions := map[string]int{}, 0
	for _, body := range []map[string]any{{"email": "ann@example.org", "phoneNumber": "+447700900001"}, {"phoneNumber": "+447700900002"},
		{"email": "cat@example.org"}, {"email": "nobody@example.org"}} {
		r := call(t, s, "POST", "/api/v1/gdpr/search-and-anonymise", kt, body).JSON(t)
		m, _ := r["removedMentions"].(float64)
		mentions += int(m)
		counts, ok := r["anonymisedRecords"].(map[string]any)
		if !ok {
			t.Fatalf("single erasure of %v: %v", body, r)
		}
		for kind, n := range counts {
			sum[kind] += int(n.(float64))
		}
	}
	completed := auditOf(t, s, tn, tenants.ActionBulkCompleted)
	if len(completed) != 1 {
		t.Fatalf("completed entries: %+v", completed)
	}
	for kind, n := range sum {
		if completed[0].Counts[kind] != n {
			t.Errorf("%s: bulk erased %d, single erasures %d", kind, completed[0].Counts[kind], n)
		}
		if !strings.Contains(done, `data-testid="bulk-erased-`+kind+`">`+strconv.Itoa(n)+`<`) {
			t.Errorf("page shows another count of %s than %d", kind, n)
		}
	}
	if sum["formSubmissions"] != 4 || sum["canvassingSubmissions"] != 1 || mentions != 1 || completed[0].Counts["removedMentions"] != 1 {
		t.Errorf("single erasures: %v, %d mentions; bulk: %v", sum, mentions, completed[0].Counts)
	}
	if !strings.Contains(done, "Mentions removed from 1 record of others.") {
		t.Errorf("the request page does not count the removed mention:\n%s", done)
	}
	if r := getSubmission(t, s, k, "names-cat"); at(r, "anonymisedAt") != nil || at(r, "payload.referred_friend") != nil ||
		str(r, "contact.email") != "alice@example.org" {
		t.Errorf("the record naming Cat after the bulk erasure: %v", r)
	}
	if r := getSubmission(t, s, k, "keep"); at(r, "anonymisedAt") != nil {
		t.Error("the bystander was erased")
	}
	for _, action := range []string{tenants.ActionBulkRequested, tenants.ActionBulkApproved, tenants.ActionBulkRejected, tenants.ActionBulkCompleted} {
		entries := auditOf(t, s, tn, action)
		if len(entries) == 0 {
			t.Errorf("no %s entry", action)
		}
		for _, e := range entries {
			for _, id := range []string{"ann@", "cat@", "nobody@", "7700900", "ann%40"} {
				if strings.Contains(toJSON(e), id) {
					t.Errorf("%s entry holds %q: %+v", action, id, e)
				}
			}
		}
	}
	found := false
	for _, e := range auditOf(t, s, tn, tenants.ActionBulkRequested) {
		found = found || (e.Counts["emails"] == 3 && e.Counts["phones"] == 2 && e.Counts["formSubmissions"] == 4 && e.Actor == "staff:"+staffID(t, s, "sup@example.org"))
	}
	if !found {
		t.Errorf("no request entry counting 3 e-mail addresses, 2 phone numbers, 4 form submissions by the support user")
	}
}

// staffID looks a staff user's id up in the store.
func staffID(t *testing.T, s *testServer, email string) string {
	t.Helper()
	store, err := openStore(context.Background(), configFrom(s.getenv))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	st, err := store.Staff.ByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return st.ID
}

// TestBulkErasureFourEyesPuppets: four-eyes approval is refused to every account the
// requester controls. The requester makes P1 in the admin UI, P1 makes P2; the requester asks
// for a bulk erasure; neither P1 nor P2 may approve it, nor an account made after the request
// by someone else, and the request stays pending until an admin made before it, by no one the
// requester controls, approves it.
func TestBulkErasureFourEyesPuppets(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	bulkPeople(t, s, k)
	for _, email := range []string{"boss@example.org", "other@example.org"} {
		s.cli("staff", "create", "--email", email, "--password", "pass-word-123", "--role", "tenant_admin", "--tenant", tn)
	}
	client := func(email string) *adminClient {
		c := newAdminClient(t, s)
		c.signIn(email, "pass-word-123")
		return c
	}
	create := func(by *adminClient, email string) *adminClient {
		t.Helper()
		by.get("/admin/staff")
		if st, body, _ := by.post("/admin/staff", url.Values{"email": {email}, "password": {"a-long-password-1"}, "role": {"tenant_admin"}}); st != 303 {
			t.Fatalf("create %s: %d\n%s", email, st, body)
		}
		c := newAdminClient(t, s)
		c.signIn(email, "a-long-password-1")
		return c
	}
	boss, other := client("boss@example.org"), client("other@example.org")
	p1 := create(boss, "p1@example.org")
	p2 := create(p1, "p2@example.org")

	boss.get("/admin/bulk-erasure")
	st, _, loc := boss.post("/admin/bulk-erasure", url.Values{"identifiers": {"ann@example.org"}})
	if st != 303 || !bulkIDPath.MatchString(loc) {
		t.Fatalf("request: %d %q", st, loc)
	}
	late := create(other, "late@example.org")
	for name, c := range map[string]*adminClient{"P1 (made by the requester)": p1, "P2 (made by P1)": p2, "an account made after the request": late} {
		c.get(loc)
		if st, body, _ := c.post(loc+"/approve", nil); st != 409 || !strings.Contains(body, "cannot approve it") {
			t.Errorf("approval by %s: %d, want 409\n%s", name, st, body)
		}
	}
	if _, body := boss.get(loc); !strings.Contains(body, "Waiting for approval") {
		t.Fatalf("after the refused approvals the request is not pending:\n%s", body)
	}
	if r := getSubmission(t, s, k, "a1"); at(r, "anonymisedAt") != nil {
		t.Fatal("erased after a refused approval")
	}
	if len(auditOf(t, s, tn, tenants.ActionBulkApproved)) != 0 {
		t.Error("a refused approval was audited as an approval")
	}
	other.get(loc)
	if st, _, _ := other.post(loc+"/approve", nil); st != 303 {
		t.Fatalf("approval by an independent admin: %d", st)
	}
	if n := len(auditOf(t, s, tn, tenants.ActionBulkApproved)); n != 1 {
		t.Errorf("%d approval entries, want 1", n)
	}
}
