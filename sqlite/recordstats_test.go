package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/pressly/goose/v3"
)

// TestRecordStatsFollowTheRecords: the dashboard's counts (record_stats, record_days, kept by
// the triggers of migration 00017) equal a count of the records after inserts, status
// changes, anonymisation, a move to another day and deletes, whatever path writes them.
func TestRecordStatsFollowTheRecords(t *testing.T) {
	ctx := context.Background()
	s := newFile(t)
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
		var deadline any
		if i%4 != 3 {
			deadline = int64(i%6)*day + int64(i)
		}
		exec(`INSERT INTO records (tenant_id, kind, public_id, form_id, created_at, pp_status, ge_status, ge_deadline, gp_status, gp_deadline, body)
			VALUES (?, ?, ?, 'f', ?, 'granted', ?, ?, ?, ?, '{}')`, []string{"a", "b"}[i%3/2], kind, "r"+string(rune('A'+i)), int64(i%5)*day+7, st,
			deadline, []string{"granted", "not_granted"}[i%2], deadline)
	}
	exec(`UPDATE records SET ge_deadline = ge_deadline + ? WHERE rid % 4 = 1`, 2*day)
	exec(`UPDATE records SET ge_deadline = ge_deadline + 1 WHERE rid % 4 = 2`)
	exec(`UPDATE records SET ge_status = 'granted' WHERE rid % 6 = 2`)
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
	same("record_expiring_days", `SELECT tenant_id, channel, day, n FROM record_expiring_days WHERE n > 0`,
		`SELECT tenant_id, 'ge', ge_deadline / 86400000, count(*) FROM records WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL GROUP BY 1, 3
		UNION ALL SELECT tenant_id, 'gp', gp_deadline / 86400000, count(*) FROM records WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL GROUP BY 1, 3`)
	// The chart's days from the table and its partial first and last day from the index
	// count what the index alone counts.
	for _, c := range []tenants.ConsentName{tenants.ConsentGeneralContactEmail, tenants.ConsentGeneralContactPhone} {
		for _, span := range [][2]int64{{day / 2, 4*day + day/3}, {0, 6 * day}, {day + 5, day + 9}, {3, 2 * day}} {
			from, to := time.UnixMilli(span[0]), time.UnixMilli(span[1])
			got, err := s.Records.ExpiringPerDay(ctx, "a", c, from, to)
			if err != nil {
				t.Fatal(err)
			}
			st, dl := statusColumns[c][0], statusColumns[c][1]
			want, err := s.Records.perDay(ctx, "", `SELECT `+dl+` / ?, count(*) FROM records WHERE tenant_id = 'a' AND `+st+` = 'granted'
				AND anonymised_at IS NULL AND `+dl+` > ? AND `+dl+` <= ? GROUP BY 1`, day, span[0], span[1])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s expiring in (%d, %d]: %v, want %v", c, span[0], span[1], got, want)
			}
		}
	}
	same("record_days", `SELECT tenant_id, kind, day, n FROM record_days WHERE n > 0`,
		`SELECT tenant_id, kind, created_at / 86400000, count(*) FROM records GROUP BY 1, 2, 3`)
}

// TestRecordStatsMigrationCountsExistingRecords: a database of migration 00016 with records
// in it gets counts equal to its records when 00017 applies at the next start, and the
// dashboard's stats read them.
func TestRecordStatsMigrationCountsExistingRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fsys, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectSQLite3, s.w, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		st := []string{"granted", "revoked", "not_granted"}[i%3]
		var anon any
		if i%10 == 0 {
			anon = 5
		}
		if _, err := s.w.ExecContext(ctx, `INSERT INTO records (tenant_id, kind, public_id, form_id, created_at, pp_status, ge_status, gp_status, anonymised_at, body)
			VALUES ('a', 'formSubmission', ?, 'f', ?, 'granted', ?, 'not_granted', ?, '{}')`, fmt.Sprint(i), int64(i)*3600000, st, anon); err != nil {
			t.Fatal(err)
		}
	}
	s.Close(ctx)
	if s, err = Open(ctx, Config{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	stats, err := s.Records.ConsentStats(ctx, "a", tenants.KindFormSubmission, time.UnixMilli(0))
	if err != nil {
		t.Fatal(err)
	}
	want := tenants.StatusCounts{Granted: 9, Revoked: 9, NotGranted: 9}
	if stats.GeneralContactEmail != want || stats.Anonymised != 3 || stats.PrimaryPurpose.Granted != 27 {
		t.Errorf("stats after the migration %+v, want e-mail %+v, 3 anonymised, 27 primary purpose granted", stats, want)
	}
	days, err := s.Records.CreatedPerDay(ctx, "a", tenants.KindFormSubmission, time.UnixMilli(0), time.UnixMilli(2*dayMS))
	if err != nil {
		t.Fatal(err)
	}
	if days[time.UnixMilli(0).UTC()] != 24 || days[time.UnixMilli(dayMS).UTC()] != 6 {
		t.Errorf("records per day after the migration %v, want 24 and 6", days)
	}
}
