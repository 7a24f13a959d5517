package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestRightsQueriesUseIndexes: the re-permission list and retention's due records are read
// through their partial indexes (migration 00003), in order: no scan, no sort.
func TestRightsQueriesUseIndexes(t *testing.T) {
	s := newFile(t)
	now := time.Now()
	plan := func(query string, args ...any) string {
		t.Helper()
		return queryPlan(t, s, query, args...)
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

// TestListAndJobQueriesUseIndexes: every list, look-up and job query reads through an index in
// the order it returns (no table scan, no temporary sort): finding a person by match keys,
// the record lists (all, by form) and counts, the expiry job's due records, the audit log's
// lists (per tenant, per action, per actor, across tenants, keyset-paged), the hash chain's
// end and walk, and the outgoing webhooks' due deliveries.
func TestListAndJobQueriesUseIndexes(t *testing.T) {
	s := newFile(t)
	plan := func(query string, args ...any) string {
		t.Helper()
		return queryPlan(t, s, query, args...)
	}
	now := time.Now()
	tenant := "a"
	type query struct {
		name, q string
		args    []any
		want    []string // every one must be in the plan
	}
	var qs []query
	find := `SELECT ` + prefixed("r.", recordCols) + ` FROM records r WHERE r.rid IN (
		SELECT rid FROM match_keys WHERE key IN (?, ?)) AND +r.tenant_id = ? ORDER BY r.rid`
	qs = append(qs, query{"find a person", find, []any{key16("k1"), key16("k2"), tenant},
		[]string{"SEARCH match_keys USING PRIMARY KEY (key=?)", "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)"}})
	for _, p := range []struct {
		name  string
		page  tenants.Page
		index string
	}{
		{"list records", tenants.Page{Limit: 50, Now: now}, "records_created"},
		{"list records of a form", tenants.Page{Limit: 50, FormID: "f", Now: now}, "records_form"},
		{"list records, e-mail consent revoked", tenants.Page{Limit: 50, Consent: tenants.ConsentGeneralContactEmail,
			Status: tenants.StatusRevoked, Now: now}, "records_revoked_ge"},
		{"list records, primary purpose revoked", tenants.Page{Limit: 50, Consent: tenants.ConsentPrimaryPurpose,
			Status: tenants.StatusRevoked, Now: now}, "records_revoked_pp"},
		{"list records, phone consent pending", tenants.Page{Limit: 50, Consent: tenants.ConsentGeneralContactPhone,
			Status: tenants.StatusPending, Now: now}, "records_pending_gp"},
		{"list records, e-mail consent lapsed", tenants.Page{Limit: 50, Consent: tenants.ConsentGeneralContactEmail,
			Status: tenants.StatusLapsed, Now: now}, "records_pending_ge"},
		{"list records, older than a row", tenants.Page{Limit: 50, Now: now, Cursor: &tenants.Cursor{Time: now, ID: "p"}}, "records_created"},
		{"list records, newer than a row", tenants.Page{Limit: 50, Now: now, Cursor: &tenants.Cursor{Time: now, ID: "p", Newer: true}}, "records_created"},
		{"list records of a form, older than a row", tenants.Page{Limit: 50, FormID: "f", Now: now, Cursor: &tenants.Cursor{Time: now, ID: "p"}}, "records_form"},
		{"list records by status, older than a row", tenants.Page{Limit: 50, Status: tenants.StatusGranted, Now: now, Cursor: &tenants.Cursor{Time: now, ID: "p"}}, "records_created"},
	} {
		where, args, err := listWhere(tenant, tenants.KindFormSubmission, p.page)
		if err != nil {
			t.Fatal(err)
		}
		countWhere, countArgs := where, args
		where, args, order := cursorWhere(where, args, p.page.Cursor)
		args = append(args, sql.Named("limit", 50))
		want := []string{"SEARCH records USING INDEX " + p.index}
		if p.page.Cursor != nil {
			// The position bounds the range the index reads (never a read from the newest row),
			// and its row is found by the public id.
			want = append(want, "created_at<?", "SEARCH records USING COVERING INDEX sqlite_autoindex_records_1 (tenant_id=? AND kind=? AND public_id=?)")
			if p.page.Cursor.Newer {
				want[1] = "created_at>?"
			}
		}
		qs = append(qs, query{p.name, `SELECT ` + recordCols + ` FROM records` + statusIndex(p.page) + ` WHERE ` + where +
			` ORDER BY created_at ` + order + `, rid ` + order + ` LIMIT :limit`, args, want})
		if p.page.Cursor == nil {
			qs = append(qs, query{p.name + " (count)", `SELECT count(*) FROM (SELECT 1 FROM records` + statusIndex(p.page) + ` WHERE ` + countWhere +
				` LIMIT 1000)`, countArgs, []string{"SEARCH records USING"}})
			if statusIndex(p.page) != "" {
				qs[len(qs)-1].want = append(qs[len(qs)-1].want, "INDEX "+p.index)
			}
		}
	}
	// The dashboard: stored statuses and days from the tables the triggers keep (migration
	// 00017), deadlines passed from the expiry job's index.
	qs = append(qs,
		query{"dashboard: consent statuses", `SELECT anonymised, pp_status, ge_status, gp_status, n FROM record_stats
			WHERE tenant_id = ? AND kind = ? AND n > 0`, []any{tenant, "formSubmission"}, []string{"SEARCH record_stats USING PRIMARY KEY"}},
		query{"dashboard: granted past its deadline", `SELECT pp_status FROM records INDEXED BY records_due
			WHERE next_deadline IS NOT NULL AND next_deadline <= ? AND tenant_id = ? AND kind = ? AND anonymised_at IS NULL`,
			[]any{ms(now), tenant, "formSubmission"}, []string{"SEARCH records USING INDEX records_due"}},
		query{"dashboard: consents expiring per day", `SELECT day, n FROM record_expiring_days WHERE tenant_id = ? AND channel = ? AND day >= ? AND day < ? AND n > 0`,
			[]any{tenant, "ge", 1, 30}, []string{"SEARCH record_expiring_days USING PRIMARY KEY"}},
		query{"dashboard: records per day", `SELECT day, n FROM record_days WHERE tenant_id = ? AND kind = ? AND day >= ? AND day < ? AND n > 0`,
			[]any{tenant, "formSubmission", 1, 30}, []string{"SEARCH record_days USING PRIMARY KEY"}},
	)
	qs = append(qs,
		query{"count records", `SELECT count(*) FROM records WHERE tenant_id = ? AND kind = ?`, []any{tenant, "formSubmission"},
			[]string{"SEARCH records USING COVERING INDEX"}},
		query{"the expiry job's due records", `SELECT ` + recordCols + ` FROM records WHERE next_deadline <= ? ORDER BY next_deadline LIMIT ?`,
			[]any{ms(now), 100}, []string{"SEARCH records USING INDEX records_due"}},
		query{"the chain's end", chainHead, []any{tenant}, []string{"SEARCH audit USING"}},
		query{"the chain's walk", `SELECT ` + auditCols + ` FROM audit WHERE tenant_id = ? AND chain > ? ORDER BY chain LIMIT ?`,
			[]any{tenant, 0, 2000}, []string{"SEARCH audit USING INDEX"}},
		query{"due webhook deliveries", dueDeliveries,
			[]any{ms(now), `["e1"]`, 100}, []string{"SEARCH webhook_deliveries USING INDEX webhook_deliveries_due"}},
		query{"an endpoint's delivery log", deliveryLog, []any{tenant, "e1", 50},
			[]string{"SEARCH webhook_deliveries USING INDEX webhook_deliveries_endpoint (tenant_id=? AND endpoint_id=?)"}},
		query{"an attempt's outcome", updateDelivery, []any{"delivered", 1, ms(now), ms(now), "200", tenant, "e1", ms(now), "msg_1"},
			[]string{"SEARCH webhook_deliveries USING INDEX webhook_deliveries_endpoint (tenant_id=? AND endpoint_id=? AND created_at=? AND event_id=?)"}},
	)
	for _, a := range []struct {
		name   string
		tenant *string
		f      tenants.AuditFilter
		after  *cursor
		index  string
	}{
		{"audit log", &tenant, tenants.AuditFilter{Limit: 50}, nil, "audit_tenant"},
		{"audit log by action", &tenant, tenants.AuditFilter{Limit: 50, Action: tenants.ActionConsentGranted}, nil, "audit_tenant_action"},
		{"audit log by actor", &tenant, tenants.AuditFilter{Limit: 50, Actor: "key:k1"}, nil, "audit_tenant_actor"},
		{"audit log by action and actor (the dashboard's confirmations)", &tenant, tenants.AuditFilter{Action: tenants.ActionConsentGranted, Actor: "subject"}, nil, "audit_tenant_actor"},
		{"audit log in a date range, paged", &tenant, tenants.AuditFilter{Limit: 2000, From: now.Add(-time.Hour), To: now}, &cursor{time: ms(now), seq: 9}, "audit_tenant"},
		{"audit log of every tenant", nil, tenants.AuditFilter{Limit: 50}, nil, "audit_time"},
		{"audit log, older than an entry", &tenant, tenants.AuditFilter{Limit: 50, Cursor: &tenants.Cursor{Time: now, ID: "e"}}, nil, "audit_tenant (tenant_id=? AND time<?)"},
		{"audit log by actor, newer than an entry", &tenant, tenants.AuditFilter{Limit: 50, Actor: "key:k1", Cursor: &tenants.Cursor{Time: now, ID: "e", Newer: true}}, nil, "audit_tenant_actor (tenant_id=? AND actor=? AND time>?)"},
	} {
		q, args := auditQuery(a.tenant, a.f, a.after)
		qs = append(qs, query{a.name, q, args, []string{"SEARCH audit USING INDEX " + a.index}})
		if a.tenant == nil {
			qs[len(qs)-1].want = []string{"SCAN audit USING INDEX audit_time"}
		}
	}
	for _, q := range qs {
		got := plan(q.q, q.args...)
		for _, w := range q.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: plan %q, want %q", q.name, got, w)
			}
		}
		if strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("%s: plan %q sorts", q.name, got)
		}
		for _, table := range []string{"records", "audit", "match_keys", "webhook_deliveries"} {
			if strings.Contains(got, "SCAN "+table) && !strings.Contains(got, "SCAN "+table+" USING INDEX") {
				t.Errorf("%s: plan %q scans %s", q.name, got, table)
			}
		}
	}
}

// queryPlan is SQLite's plan of query, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(query, err)
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
