package main

import (
	"net/url"
	"testing"
	"time"
)

// TestConsentReads covers GET /api/v1/consents (docs/API.md §7.2): aggregate statuses (granted
// beats revoked beats expired beats not_granted), deadlines read as expired at once, e-mail
// matched case-insensitively, phone matched in any accepted spelling, 400s, tenant isolation.
func TestConsentReads(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	k := s.key(tn, "all")
	ko := s.key(other, "all")
	w := s.key(tn, "submissions:write")
	cPhone := "+442079460958"

	emailSub := func(id, email string, extra ...any) map[string]any {
		return with(map[string]any{"form_id": "petition", "submission_id": id, "email": email, "consent_to_general_contact_email": true}, extra...)
	}
	unsubscribe := func(email string) {
		t.Helper()
		r := call(t, s, "POST", "/api/v1/brevo/unsubscribe", k, map[string]any{"email": email})
		if r.Status != 200 {
			t.Fatalf("unsubscribe %s: %d %s", email, r.Status, r.Body)
		}
	}
	// A: a revoked submission, then a newer granted one.
	submit(t, s, k, emailSub("a1", "a@example.org"))
	unsubscribe("a@example.org")
	submit(t, s, k, emailSub("a2", "a@example.org"))
	// B: a revoked submission, then one that expires.
	submit(t, s, k, emailSub("b1", "b@example.org"))
	unsubscribe("b@example.org")
	submit(t, s, k, emailSub("b2", "b@example.org", "consent_to_general_contact_deadline_interval", "2s"))
	// C: an expiring e-mail consent, and a submission granting only the phone.
	submit(t, s, k, emailSub("c1", "c@example.org", "consent_to_general_contact_deadline_interval", "2s"))
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "c2", "email": "c@example.org",
		"phone_number": "+44 20 7946 0958", "consent_to_general_contact_phone": true, "consent_to_general_contact_email": false})
	// D: primary purpose only.
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "d1", "email": "d@example.org",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d"})
	// E: an expiring consent and a live one.
	submit(t, s, k, emailSub("e1", "e@example.org", "consent_to_general_contact_deadline_interval", "2s"))
	submit(t, s, k, emailSub("e2", "e@example.org"))
	// F: every consent expiring.
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "f1", "email": "f@example.org", "phone_number": "+4915112340000",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "2s",
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true,
		"consent_to_general_contact_deadline_date":     time.Now().UTC().Add(time.Hour).Format(time.RFC3339),
		"consent_to_general_contact_deadline_interval": "2 s"})

	f1 := getSubmission(t, s, k, "f1")
	if status(f1, "primaryPurpose") != "granted" {
		t.Fatalf("f1 before its deadline: %v", at(f1, "consents"))
	}
	last := timeAt(t, f1, "consents.generalContactEmail.deadline")
	if got := consentsOf(t, s, k, "email", "f@example.org"); str(got, "generalContact.email") != "granted" {
		t.Errorf("f before its deadline: %v", got)
	}
	// The view truncates to the second: wait past the last deadline, rounded up.
	time.Sleep(time.Until(last.Add(1100 * time.Millisecond)))

	t.Run("a passed deadline reads expired at once", func(t *testing.T) {
		f1 := getSubmission(t, s, k, "f1")
		for _, c := range []string{"primaryPurpose", "generalContactEmail", "generalContactPhone"} {
			if status(f1, c) != "expired" || at(f1, "consents."+c+".revokedAt") != nil || at(f1, "consents."+c+".grantedAt") == nil {
				t.Errorf("%s: %v", c, at(f1, "consents."+c))
			}
		}
		for _, q := range [][2]string{{"email", "F@Example.org"}, {"phone", "+4915112340000"}} {
			got := consentsOf(t, s, k, q[0], q[1])
			jsonEqual(t, "generalContact", at(got, "generalContact"), map[string]any{"email": "expired", "phone": "expired"})
		}
	})

	type agg struct {
		name, param, value string
		email, phone       string
		ids                []string
	}
	for _, c := range []agg{
		{"granted beats revoked", "email", "A@EXAMPLE.ORG", "granted", "not_granted", []string{"a1", "a2"}},
		{"revoked beats expired", "email", "b@example.org", "revoked", "not_granted", []string{"b1", "b2"}},
		{"expired beats not_granted", "email", "c@Example.Org", "expired", "granted", []string{"c1", "c2"}},
		{"not_granted alone", "email", "d@example.org", "not_granted", "not_granted", []string{"d1"}},
		{"granted beats expired", "email", "e@example.org", "granted", "not_granted", []string{"e1", "e2"}},
		{"phone formatted", "phone", "+44 20 7946 0958", "not_granted", "granted", []string{"c2"}},
		{"phone E.164", "phone", cPhone, "not_granted", "granted", []string{"c2"}},
		{"phone with hyphens", "phone", "+44-20-7946-0958", "not_granted", "granted", []string{"c2"}},
		{"no match", "email", "nobody@example.org", "not_granted", "not_granted", []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := consentsOf(t, s, k, c.param, c.value)
			if ks := keysOf(got, ""); !equalStrings(ks, []string{"generalContact", "submissions"}) {
				t.Errorf("keys %v", ks)
			}
			jsonEqual(t, "generalContact", at(got, "generalContact"), map[string]any{"email": c.email, "phone": c.phone})
			subs, ok := at(got, "submissions").([]any)
			if !ok {
				t.Fatalf("submissions is %v", at(got, "submissions"))
			}
			var ids []string
			for _, sub := range subs {
				if ks := keysOf(sub, ""); !equalStrings(ks, []string{"consents", "createdAt", "formId", "submissionId"}) {
					t.Errorf("submission keys %v", ks)
				}
				timeAt(t, sub, "createdAt")
				if str(sub, "formId") != "petition" {
					t.Errorf("formId %v", at(sub, "formId"))
				}
				ids = append(ids, str(sub, "submissionId"))
				// Each listed consent view is the same as the submission's own.
				jsonEqual(t, "consents of "+str(sub, "submissionId"), at(sub, "consents"), at(getSubmission(t, s, k, str(sub, "submissionId")), "consents"))
			}
			if !sameSet(ids, c.ids) {
				t.Errorf("submissions %v, want %v", ids, c.ids)
			}
		})
	}

	t.Run("unencoded plus in the query", func(t *testing.T) {
		r := call(t, s, "GET", "/api/v1/consents?phone=+442079460958", k, nil)
		if r.Status != 200 || str(r.JSON(t), "generalContact.phone") != "granted" {
			t.Errorf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("both parameters", func(t *testing.T) {
		r := call(t, s, "GET", "/api/v1/consents?email=a%40example.org&phone="+url.QueryEscape(cPhone), k, nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		got := r.JSON(t)
		jsonEqual(t, "generalContact", at(got, "generalContact"), map[string]any{"email": "granted", "phone": "granted"})
		if n := len(at(got, "submissions").([]any)); n != 3 {
			t.Errorf("%d submissions, want a1, a2, c2", n)
		}
	})

	empty := `{"generalContact":{"email":"not_granted","phone":"not_granted"},"submissions":[]}`
	runCases(t, s, []apiCase{
		{name: "no parameter", method: "GET", path: "/api/v1/consents", key: k, status: 400, kind: "ValidationError", contains: []string{"email", "phone"}},
		{name: "both empty", method: "GET", path: "/api/v1/consents?email=&phone=", key: k, status: 400, kind: "ValidationError"},
		{name: "other parameter only", method: "GET", path: "/api/v1/consents?name=a", key: k, status: 400, kind: "ValidationError"},
		{name: "invalid e-mail", method: "GET", path: "/api/v1/consents?email=not-an-email", key: k, status: 400, kind: "ValidationError", field: "email"},
		{name: "invalid phone", method: "GET", path: "/api/v1/consents?phone=12345", key: k, status: 400, kind: "ValidationError", field: "phone"},
		{name: "no match is exact", method: "GET", path: "/api/v1/consents?email=nobody%40example.org", key: k, status: 200,
			check: func(t *testing.T, r response) {
				if string(r.Body) != empty {
					t.Errorf("body %s, want %s", r.Body, empty)
				}
			}},
		{name: "another tenant sees nothing", method: "GET", path: "/api/v1/consents?email=a%40example.org", key: ko, status: 200,
			check: func(t *testing.T, r response) {
				if string(r.Body) != empty {
					t.Errorf("body %s, want %s", r.Body, empty)
				}
			}},
		{name: "another tenant by phone", method: "GET", path: "/api/v1/consents?phone=" + url.QueryEscape(cPhone), key: ko, status: 200,
			check: func(t *testing.T, r response) {
				if string(r.Body) != empty {
					t.Errorf("body %s, want %s", r.Body, empty)
				}
			}},
		{name: "write-only key", method: "GET", path: "/api/v1/consents?email=a%40example.org", key: w, status: 403, kind: "Forbidden"},
		{name: "no key", method: "GET", path: "/api/v1/consents?email=a%40example.org", status: 401, kind: "Unauthorized"},
	})
}

// sameSet reports whether a and b hold the same strings, ignoring order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
