package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestRightsQueriesUseIndexes: the re-permission list and retention's due records are read
// through their partial indexes (migration 00003), in order: no scan, no sort.
func TestRightsQueriesUseIndexes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	now := time.Now()
	plan := func(query string, args ...any) string {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "; ")
	}
	check := func(got, index string) {
		t.Helper()
		if !strings.Contains(got, "SEARCH records USING INDEX "+index) || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("plan %q, want a search of %s in order", got, index)
		}
	}
	for _, c := range []struct {
		q     tenants.ExpiringQuery
		index string
	}{
		{tenants.ExpiringQuery{Consent: tenants.ConsentGeneralContactEmail, After: now, Until: now, Limit: 100}, "records_expiring_email"},
		{tenants.ExpiringQuery{Consent: tenants.ConsentGeneralContactPhone, FormID: "f", After: now, Until: now, Limit: 100,
			Cursor: &tenants.ExpiringCursor{Deadline: now, ID: "a:formSubmission:x"}}, "records_expiring_phone"},
	} {
		query, args, err := expiringQuery("a", c.q)
		if err != nil {
			t.Fatal(err)
		}
		check(plan(query, args...), c.index)
	}
	for from, index := range map[string]string{tenants.RetentionFromCreated: "records_retain_created", tenants.RetentionFromConsentsLapsed: "records_retain_lapsed"} {
		cond, col, err := dueCondition(tenants.DueQuery{From: from})
		if err != nil {
			t.Fatal(err)
		}
		check(plan(`SELECT rid FROM records `+cond+` ORDER BY `+col+`, rid LIMIT 10`, "a", "f", 1), index)
	}
}
