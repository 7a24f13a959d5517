package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

const exportPath = "/api/v1/gdpr/export"

// auditOf returns the tenant's audit entries of action, read through `consentforms export`.
func auditOf(t *testing.T, s *testServer, tenant, action string) []tenants.AuditEntry {
	t.Helper()
	var buf bytes.Buffer
	if err := run(context.Background(), []string{"export"}, s.getenv, &buf, io.Discard); err != nil {
		t.Fatalf("export: %v", err)
	}
	var out []tenants.AuditEntry
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var it tenants.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		if it.Audit != nil && it.Audit.TenantID == tenant && it.Audit.Action == action {
			out = append(out, *it.Audit)
		}
	}
	return out
}

// exportedIDs lists the submission ids of an export's records per kind, sorted.
func exportedIDs(t *testing.T, body map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, kind := range []string{"formSubmissions", "digitisationSubmissions", "canvassingSubmissions", "phoneCallTasks"} {
		list, ok := at(body, "records."+kind).([]any)
		if !ok {
			t.Fatalf("records.%s is not a list: %v", kind, at(body, "records"))
		}
		for _, r := range list {
			out[kind] = append(out[kind], str(r, "submissionId"))
		}
		sort.Strings(out[kind])
	}
	return out
}

// TestGDPRExport: an export returns exactly the person's records of all four kinds, in the read
// shape plus the kind's own fields, nothing of a bystander or of another tenant's identical
// person; it follows search-and-anonymise's 400 rules, needs gdpr:export, and is audited with
// counts only.
func TestGDPRExport(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := openTenant(s), openTenant(s)
	ka, kb := s.key(a, "all"), s.key(b, "all")
	want := seedPerson(t, s, ka, ophelia, "")
	seedPerson(t, s, kb, ophelia, "b-")
	submit(t, s, ka, map[string]any{"form_id": "petition", "submission_id": "bystander", "email": "keep@example.org",
		"consent_to_general_contact_email": true, "first_name": "Keep"})

	r := call(t, s, "POST", exportPath, s.key(a, "gdpr:export"), map[string]any{"email": ophelia.emailSent, "phoneNumber": ophelia.phoneSent})
	if r.Status != 200 {
		t.Fatalf("export: %d %s", r.Status, r.Body)
	}
	body := r.JSON(t)
	got := exportedIDs(t, body)
	// f3 only mentions the person in a custom field: it is someone else's record.
	if !slices.Equal(got["formSubmissions"], []string{"f1", "f2"}) {
		t.Errorf("form submissions %v, want f1 f2", got["formSubmissions"])
	}
	n := counts{len(got["formSubmissions"]), len(got["digitisationSubmissions"]), len(got["canvassingSubmissions"]), len(got["phoneCallTasks"])}
	if n != want {
		t.Errorf("exported %+v, want %+v", n, want)
	}
	if str(body, "subject.email") != ophelia.email || str(body, "subject.phoneNumber") != ophelia.phone {
		t.Errorf("subject %v", at(body, "subject"))
	}
	if str(body, "generalContact.email") != "granted" || str(body, "generalContact.phone") != "granted" {
		t.Errorf("generalContact %v", at(body, "generalContact"))
	}
	timeAt(t, body, "generatedAt")
	f1 := at(body, "records.formSubmissions").([]any)
	for _, rec := range f1 {
		if str(rec, "submissionId") == "f1" {
			jsonEqual(t, "f1 as exported", with(rec.(map[string]any), "fields", nil), with(getSubmission(t, s, ka, "f1"), "fields", nil))
		}
	}
	canvass := at(body, "records.canvassingSubmissions").([]any)
	if !slices.ContainsFunc(canvass, func(v any) bool { return str(v, "fields.canvasser_id") == "cv-9" }) {
		t.Errorf("canvassing records lack their own fields: %v", canvass)
	}

	t.Run("by e-mail alone finds only what carries the e-mail", func(t *testing.T) {
		r := call(t, s, "POST", exportPath, ka, map[string]any{"email": ophelia.email})
		ids := exportedIDs(t, r.JSON(t))
		if slices.Contains(ids["formSubmissions"], "f2") || !slices.Contains(ids["formSubmissions"], "f1") {
			t.Errorf("by e-mail: %v", ids)
		}
	})
	t.Run("400 rules of search-and-anonymise", func(t *testing.T) {
		for _, body := range []any{map[string]any{}, map[string]any{"email": nil, "phoneNumber": nil},
			map[string]any{"email": "not-an-address"}, map[string]any{"phoneNumber": "12"}, map[string]any{"email": 7}, "[]", "{"} {
			if r := call(t, s, "POST", exportPath, ka, body); r.Status != 400 || str(r.JSON(t), "error") != "ValidationError" {
				t.Errorf("body %v: %d %s", body, r.Status, r.Body)
			}
		}
	})
	t.Run("needs gdpr:export", func(t *testing.T) {
		if r := call(t, s, "POST", exportPath, s.key(a, "gdpr:anonymise,submissions:read"), map[string]any{"email": ophelia.email}); r.Status != 403 {
			t.Errorf("without the scope: %d %s", r.Status, r.Body)
		}
	})
	t.Run("audited with counts, no identifier", func(t *testing.T) {
		entries := auditOf(t, s, a, tenants.ActionGDPRExported)
		if len(entries) != 2 {
			t.Fatalf("%d gdpr.exported entries, want 2", len(entries))
		}
		e := entries[0]
		if e.Counts["formSubmissions"] != 2 && entries[1].Counts["formSubmissions"] != 2 {
			t.Errorf("counts %v %v", e.Counts, entries[1].Counts)
		}
		raw, _ := json.Marshal(entries)
		for _, needle := range []string{ophelia.email, ophelia.phone, ophelia.first, "ophelia"} {
			if bytes.Contains(bytes.ToLower(raw), []byte(needle)) {
				t.Errorf("audit entry holds %q: %s", needle, raw)
			}
		}
		if e.Subject != "" || len(e.RecordIDs) != 0 {
			t.Errorf("audit entry names the person or records: %+v", e)
		}
	})
	t.Run("another tenant's export sees only its own", func(t *testing.T) {
		ids := exportedIDs(t, call(t, s, "POST", exportPath, kb, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone}).JSON(t))
		if !slices.Equal(ids["formSubmissions"], []string{"b-f1", "b-f2"}) {
			t.Errorf("tenant b: %v", ids)
		}
	})
	t.Run("an erased person exports nothing", func(t *testing.T) {
		erase(t, s, ka, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone})
		ids := exportedIDs(t, call(t, s, "POST", exportPath, ka, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone}).JSON(t))
		for kind, list := range ids {
			if len(list) != 0 {
				t.Errorf("%s after erasure: %v", kind, list)
			}
		}
	})
}

// TestExpiringList: 250 granted e-mail consents expiring within the window page through with
// the cursor in deadline order, each once; revoked consents, phone consents, passed deadlines,
// deadlines past the window, other forms (when filtered) and other tenants never show.
func TestExpiringList(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := openTenant(s), openTenant(s)
	s.cli("form", "create", "--tenant", a, "--form-id", "survey", "--name", "Survey")
	ka, kb := s.key(a, "submissions:write,submissions:read,unsubscribe:write"), s.key(b, "all")
	sub := func(k, form, id, email string, days int) {
		submit(t, s, k, map[string]any{"form_id": form, "submission_id": id, "email": email, "first_name": "N" + id,
			"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": fmt.Sprintf("%dd", days)})
	}
	for i := range 250 {
		sub(ka, "petition", fmt.Sprintf("s%03d", i), fmt.Sprintf("p%03d@example.org", i), 1+(i*7)%29)
	}
	sub(ka, "survey", "other-form", "survey@example.org", 3)
	sub(ka, "petition", "later", "later@example.org", 60)
	sub(ka, "petition", "revoked", "revoked@example.org", 5)
	sub(kb, "petition", "other-tenant", "b@example.org", 5)
	submit(t, s, ka, map[string]any{"form_id": "petition", "submission_id": "phone-only", "phone_number": "+4917611112222",
		"consent_to_general_contact_phone": true, "consent_to_general_contact_deadline_interval": "5d"})
	if r := call(t, s, "POST", unsubPath("brevo"), ka, map[string]any{"event": "unsubscribe", "email": "revoked@example.org"}); r.Status >= 300 {
		t.Fatalf("unsubscribe: %d %s", r.Status, r.Body)
	}

	var seen []string
	var last time.Time
	cursor := ""
	pages := 0
	for {
		q := url.Values{"within": {"30d"}, "channel": {"email"}, "form": {"petition"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := call(t, s, "GET", "/api/v1/consents/expiring?"+q.Encode(), ka, nil)
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", pages, r.Status, r.Body)
		}
		var page struct {
			Items []struct {
				SubmissionID string    `json:"submissionId"`
				FormID       string    `json:"formId"`
				Email        *string   `json:"email"`
				FirstName    *string   `json:"firstName"`
				Deadline     time.Time `json:"deadline"`
			} `json:"items"`
			NextCursor *string `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Body, &page); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range page.Items {
			if it.Deadline.Before(last) {
				t.Errorf("%s (deadline %s) after %s: not in deadline order", it.SubmissionID, it.Deadline, last)
			}
			last = it.Deadline
			if it.Email == nil || it.FirstName == nil || *it.FirstName != "N"+it.SubmissionID || it.FormID != "petition" {
				t.Errorf("item %+v", it)
			}
			seen = append(seen, it.SubmissionID)
		}
		if page.NextCursor == nil || pages > 10 {
			break
		}
		cursor = *page.NextCursor
	}
	sorted := slices.Sorted(slices.Values(seen))
	if len(seen) != 250 || len(slices.Compact(sorted)) != 250 || sorted[0] != "s000" || sorted[249] != "s249" {
		t.Errorf("paged %d items (%d distinct) in %d pages, want s000…s249 once each", len(seen), len(slices.Compact(sorted)), pages)
	}
	if pages != 3 {
		t.Errorf("%d pages of the default 100, want 3", pages)
	}

	t.Run("every form, phone channel, a small limit", func(t *testing.T) {
		all := call(t, s, "GET", "/api/v1/consents/expiring?within=30d&channel=email&limit=500", ka, nil).JSON(t)
		items := at(all, "items").([]any)
		if len(items) != 251 || at(all, "nextCursor") != nil {
			t.Errorf("every form: %d items, nextCursor %v", len(items), at(all, "nextCursor"))
		}
		phone := at(call(t, s, "GET", "/api/v1/consents/expiring?within=30d&channel=phone", ka, nil).JSON(t), "items").([]any)
		if len(phone) != 1 || str(phone[0], "phoneNumber") != "+4917611112222" || at(phone[0], "email") != nil {
			t.Errorf("phone channel: %v", phone)
		}
		for _, it := range items {
			if id := str(it, "submissionId"); id == "revoked" || id == "later" || id == "other-tenant" {
				t.Errorf("%s listed", id)
			}
		}
	})
	t.Run("bad parameters answer 400", func(t *testing.T) {
		for _, q := range []string{"within=30d", "within=30d&channel=sms", "within=soon&channel=email", "channel=email&within=30d&limit=0",
			"channel=email&limit=501", "channel=email&cursor=nonsense", "channel=email&form=a%20b"} {
			if r := call(t, s, "GET", "/api/v1/consents/expiring?"+q, ka, nil); r.Status != 400 {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
		// Another tenant's cursor is refused too.
		first := call(t, s, "GET", "/api/v1/consents/expiring?within=30d&channel=email&limit=1", ka, nil).JSON(t)
		if r := call(t, s, "GET", "/api/v1/consents/expiring?channel=email&cursor="+str(first, "nextCursor"), kb, nil); r.Status != 400 {
			t.Errorf("foreign cursor: %d %s", r.Status, r.Body)
		}
	})
	t.Run("audited with the count", func(t *testing.T) {
		entries := auditOf(t, s, a, tenants.ActionConsentsExpiringListed)
		total := 0
		for _, e := range entries {
			total += e.Counts["items"]
		}
		if len(entries) < 3 || total < 250 {
			t.Errorf("%d entries counting %d items", len(entries), total)
		}
	})
}

// TestRetentionRun: a form with a 5 s retention counted from consents-lapsed has its records
// anonymised by `retention run` only once the consent expired and 5 s passed; a tenant default
// of 5 s from created does the same for records of no form; what erasure removes goes (the
// person is no longer found, and on the embedded store the files no longer hold the name); a
// repeat counts zeros; a record whose consent never lapses, and other forms, stay.
func TestRetentionRun(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_RETENTION_EVERY=0")
	tn := openTenant(s)
	out := s.cli("form", "create", "--tenant", tn, "--form-id", "short", "--name", "Short", "--retention", "5s", "--retention-from", "consents-lapsed")
	if out["retention"] != "5s" || out["retentionFrom"] != "consents-lapsed" {
		t.Errorf("form create printed %v", out)
	}
	s.cli("tenant", "update", "--tenant", tn, "--retention", "5s")
	k := s.key(tn, "all")
	seeded := time.Now()
	submit(t, s, k, map[string]any{"form_id": "short", "submission_id": "lapses", "email": "retentia@example.org", "first_name": "Retentia",
		"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "2s"})
	submit(t, s, k, map[string]any{"form_id": "short", "submission_id": "forever", "email": "forever@example.org", "first_name": "Foreva",
		"consent_to_general_contact_email": true})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "kept", "email": "retentia@example.org",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1s"})
	postRecord(t, s, k, canvassingPath, map[string]any{"first_name": "Canvassa", "outcome": "not home"})

	runRetention := func() counts {
		t.Helper()
		var out struct {
			Anonymised *counts `json:"anonymised"`
		}
		b, _ := json.Marshal(s.cli("retention", "run"))
		if err := json.Unmarshal(b, &out); err != nil || out.Anonymised == nil {
			t.Fatalf("retention run printed %s", b)
		}
		return *out.Anonymised
	}
	first := runRetention()
	if time.Since(seeded) < 4*time.Second && first != (counts{}) {
		t.Errorf("before anything was due: %+v", first)
	}
	// The form record's consent lapses 2 s after it was stored, and is due 5 s later.
	time.Sleep(time.Until(seeded.Add(7*time.Second + 500*time.Millisecond)))
	got := runRetention().add(first)
	if got != (counts{FormSubmissions: 1, CanvassingSubmissions: 1}) {
		t.Errorf("retention anonymised %+v, want the lapsed form submission and the canvassing record", got)
	}
	if again := runRetention(); again != (counts{}) {
		t.Errorf("a repeat anonymised %+v", again)
	}
	lapsed := getSubmission(t, s, k, "lapses")
	if at(lapsed, "contact.email") != nil || at(lapsed, "contact.firstName") != nil || at(lapsed, "anonymisedAt") == nil {
		t.Errorf("lapsed record %v", lapsed)
	}
	if f := getSubmission(t, s, k, "forever"); str(f, "contact.firstName") != "Foreva" {
		t.Errorf("a record whose consent never lapses was changed: %v", f)
	}
	if subs := at(consentsOf(t, s, k, "email", "retentia@example.org"), "submissions").([]any); len(subs) != 1 || str(subs[0], "submissionId") != "kept" {
		t.Errorf("the person's records still found: %v", subs)
	}
	entries := auditOf(t, s, tn, tenants.ActionRetentionAnonymised)
	sum := 0
	for _, e := range entries {
		sum += e.Counts["formSubmissions"] + e.Counts["canvassingSubmissions"]
		if e.Actor != tenants.ActorSystem {
			t.Errorf("actor %q", e.Actor)
		}
	}
	if len(entries) != 2 || sum != 2 {
		t.Errorf("%d retention.anonymised entries counting %d, want one per form and run", len(entries), sum)
	}
	if s.getenv("MONGODB_URI") == "" {
		for name, b := range s.dataFiles() {
			for _, n := range []string{"Retentia", "Canvassa"} {
				if bytes.Contains(b, []byte(n)) {
					t.Errorf("%s still holds %q", name, n)
				}
			}
		}
	}
}

// TestRetentionCLI: the retention flags are checked before anything is written, and tenant
// update needs --retention explicitly ("" clears).
func TestRetentionCLI(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_RETENTION_EVERY=0")
	tn := openTenant(s)
	for _, args := range [][]string{
		{"form", "create", "--tenant", tn, "--form-id", "bad", "--retention", "soon"},
		{"form", "create", "--tenant", tn, "--form-id", "bad", "--retention", "2y", "--retention-from", "birth"},
		{"form", "create", "--tenant", tn, "--form-id", "bad", "--retention", "0s"},
		{"tenant", "update", "--tenant", tn},
		{"tenant", "update", "--tenant", "t_nobody", "--retention", "2y"},
	} {
		if out, err := s.cliErr(args...); err == nil {
			t.Errorf("%v: %v, want an error", args, out)
		}
	}
	if _, err := s.cliErr("form", "create", "--tenant", tn, "--form-id", "bad", "--name", "B"); err != nil {
		t.Errorf("the refused form was stored: %v", err)
	}
	out := s.cli("tenant", "update", "--tenant", tn, "--retention", "P2Y", "--retention-from", "consents-lapsed")
	if out["retention"] != "P2Y" || out["retentionFrom"] != "consents-lapsed" {
		t.Errorf("tenant update printed %v", out)
	}
	if out := s.cli("tenant", "update", "--tenant", tn, "--retention", ""); out["retention"] != nil {
		t.Errorf("clearing printed %v", out)
	}
	if out := s.cli("tenant", "create", "--name", "With retention", "--retention", "90d"); out["retention"] != "90d" || out["retentionFrom"] != "created" {
		t.Errorf("tenant create printed %v", out)
	}
}

// TestRetentionJob: the server's own retention job anonymises due records without anyone
// running the command; a malformed CONSENTFORMS_RETENTION_EVERY stops the start with a clear error.
func TestRetentionJob(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_RETENTION_EVERY=200ms")
	tn := openTenant(s)
	s.cli("form", "create", "--tenant", tn, "--form-id", "brief", "--name", "Brief", "--retention", "1s")
	k := s.key(tn, "all")
	submit(t, s, k, map[string]any{"form_id": "brief", "submission_id": "b1", "email": "brief@example.org",
		"consent_to_general_contact_email": true, "first_name": "Brevis"})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "p1", "email": "brief@example.org",
		"consent_to_general_contact_email": true, "first_name": "Brevis"})
	deadline := time.Now().Add(60 * time.Second)
	for at(getSubmission(t, s, k, "b1"), "anonymisedAt") == nil {
		if time.Now().After(deadline) {
			t.Fatal("the retention job did not anonymise the record within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if p := getSubmission(t, s, k, "p1"); str(p, "contact.firstName") != "Brevis" {
		t.Errorf("a form without retention was changed: %v", p)
	}

	var errOut bytes.Buffer
	env := map[string]string{"CONSENTFORMS_DATA_DIR": t.TempDir(), "CONSENTFORMS_ADDR": "127.0.0.1:0", "CONSENTFORMS_RETENTION_EVERY": "often"}
	err := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, io.Discard, &errOut)
	if err == nil || !strings.Contains(err.Error(), "CONSENTFORMS_RETENTION_EVERY") {
		t.Errorf("start with a bad interval: %v", err)
	}
}
