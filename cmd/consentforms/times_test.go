package main

import (
	"regexp"
	"testing"
)

// secondsTime is an API time as docs/API.md gives every one: RFC 3339, UTC, to the second.
var secondsTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)

// TestExpiringListTimesToTheSecond: the re-permission list's deadlines are to the second, as
// the docs show them, not carrying the milliseconds a deadline interval gave them.
func TestExpiringListTimesToTheSecond(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "email": "ann@example.org",
		"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "5d"})
	items, _ := at(call(t, s, "GET", "/api/v1/consents/expiring?within=30d&channel=email", k, nil).JSON(t), "items").([]any)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1", len(items))
	}
	if d := str(items[0], "deadline"); !secondsTime.MatchString(d) {
		t.Errorf("deadline %q, want RFC 3339 to the second", d)
	}
}
