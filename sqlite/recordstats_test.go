package sqlite

import (
	"context"
	"testing"
)

// TestRecordStatsFollowTheRecords: the dashboard's counts (record_stats, record_days, kept by
// the triggers of migration 00017) equal a count of the records after inserts, status
// changes, anonymisation, a move to another day and deletes, whatever path writes them.
func TestRecordStatsFollowTheRecords(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.w.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(q, err)
		}
	}
	const day = 86400000
	for i := range 40 {
		kind := []string{"formSubmission", "phoneCallTask"}[i%2]
		st := []string{"granted", "revoked", "pending", "not_granted"}[i%4]
		exec(`INSERT INTO records (tenant_id, kind, public_id, form_id, created_at, pp_status, ge_status, gp_status, body)
			VALUES (?, ?, ?, 'f', ?, 'granted', ?, 'not_granted', '{}')`, []string{"a", "b"}[i%3/2], kind, "r"+string(rune('A'+i)), int64(i%5)*day+7, st)
	}
	exec(`UPDATE records SET ge_status = 'revoked' WHERE rid % 3 = 0`)
	exec(`UPDATE records SET anonymised_at = 1 WHERE rid % 7 = 0`)
	exec(`UPDATE records SET gp_status = 'granted', created_at = created_at + ? WHERE rid % 5 = 0`, day)
	exec(`UPDATE records SET body = '{"x":1}' WHERE rid % 2 = 0`)
	exec(`DELETE FROM records WHERE rid % 11 = 0`)
	same := func(name, kept, counted string) {
		t.Helper()
		var diff int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT * FROM (`+kept+`) EXCEPT SELECT * FROM (`+counted+`))`).Scan(&diff); err != nil {
			t.Fatal(err)
		}
		var diff2 int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT * FROM (`+counted+`) EXCEPT SELECT * FROM (`+kept+`))`).Scan(&diff2); err != nil {
			t.Fatal(err)
		}
		if diff+diff2 != 0 {
			t.Errorf("%s: the kept counts differ from the records in %d rows", name, diff+diff2)
		}
	}
	same("record_stats", `SELECT tenant_id, kind, anonymised, pp_status, ge_status, gp_status, n FROM record_stats WHERE n > 0`,
		`SELECT tenant_id, kind, anonymised_at IS NOT NULL, pp_status, ge_status, gp_status, count(*) FROM records GROUP BY 1, 2, 3, 4, 5, 6`)
	same("record_days", `SELECT tenant_id, kind, day, n FROM record_days WHERE n > 0`,
		`SELECT tenant_id, kind, created_at / 86400000, count(*) FROM records GROUP BY 1, 2, 3`)
}
