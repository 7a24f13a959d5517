package main

import (
	"fmt"
	"testing"
)

// TestIdentifierLimit: a record may carry at most 32 e-mail addresses and phone numbers (its
// own and those in custom fields); past that every endpoint answers 400 too_many_identifiers
// and stores nothing, so one request can never make unbounded work.
func TestIdentifierLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	// emails returns n distinct addresses as custom fields, the record's own e-mail included.
	withEmails := func(body map[string]any, n int) map[string]any {
		body["email"] = "own@example.org"
		var list []any
		for i := 1; i < n; i++ {
			list = append(list, fmt.Sprintf("extra%d@example.org", i))
		}
		body["guests"] = list
		return body
	}
	submission := func(id string, n int) map[string]any {
		return withEmails(map[string]any{"form_id": "petition", "submission_id": id, "consent_to_general_contact_email": true,
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d"}, n)
	}
	if r := call(t, s, "POST", acceptPath, k, submission("at-limit", 32)); r.Status != 200 {
		t.Fatalf("32 identifiers: %d %s", r.Status, r.Body)
	}
	r := call(t, s, "POST", acceptPath, k, submission("over-limit", 33))
	assertCodes(t, r, "too_many_identifiers")
	// Listed with every other failed rule.
	over := submission("over-and-more", 33)
	delete(over, "consent_to_primary_purpose_deadline_interval")
	assertCodes(t, call(t, s, "POST", acceptPath, k, over), "consent_to_primary_purpose_deadline_missing", "too_many_identifiers")
	if g := call(t, s, "GET", "/api/v1/forms/submissions/over-limit", k, nil); g.Status != 404 {
		t.Errorf("the refused submission was stored: %d", g.Status)
	}
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{digitisationPath, withEmails(map[string]any{"form_id": "petition", "consent_to_general_contact_email": true,
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d"}, 33)},
		{canvassingPath, withEmails(map[string]any{"canvasser_id": "cv"}, 33)},
		{callsPath, withEmails(map[string]any{"phone_number": "+4915112345678"}, 32)}, // with its phone: 33
	} {
		r := call(t, s, "POST", c.path, k, c.body)
		m := r.JSON(t)
		if r.Status != 400 || m["error"] != "ValidationError" || m["code"] != "too_many_identifiers" {
			t.Errorf("%s: %d %s, want 400 ValidationError too_many_identifiers", c.path, r.Status, r.Body)
		}
	}
	// Nothing of the refused records is findable.
	if r := call(t, s, "GET", "/api/v1/consents?email=extra32@example.org", k, nil); r.Status != 200 || len(r.JSON(t)["submissions"].([]any)) != 0 {
		t.Errorf("a refused record was stored: %s", r.Body)
	}
}
