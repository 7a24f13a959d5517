package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

const dayMS = 24 * 60 * 60 * 1000

// CreatedPerDay counts the tenant's records of kind created in [from, to) per UTC day: from
// record_days (migration 00017, kept by triggers) when both ends are whole UTC days, as the
// dashboard asks, otherwise from the index of creation times (INDEXED BY: no record is read).
func (r *Records) CreatedPerDay(ctx context.Context, tenantID string, kind tenants.Kind, from, to time.Time) (map[time.Time]int64, error) {
	if ms(from)%dayMS == 0 && ms(to)%dayMS == 0 {
		return r.perDay(ctx, "created per day", `SELECT day, n FROM record_days
			WHERE tenant_id = ? AND kind = ? AND day >= ? AND day < ? AND n > 0`,
			tenantID, string(kind), ms(from)/dayMS, ms(to)/dayMS)
	}
	return r.perDay(ctx, "created per day", `SELECT created_at / ?, count(*) FROM records INDEXED BY records_created
		WHERE tenant_id = ? AND kind = ? AND created_at >= ? AND created_at < ? GROUP BY 1`,
		dayMS, tenantID, string(kind), ms(from), ms(to))
}

// expiringIndexes are the partial indexes of the re-permission list (migration 00006), which
// hold exactly the live records whose consent is granted with a deadline.
var expiringIndexes = map[tenants.ConsentName]string{
	tenants.ConsentGeneralContactEmail: "records_expiring_email",
	tenants.ConsentGeneralContactPhone: "records_expiring_phone",
}

// ExpiringPerDay counts the tenant's live records whose consent is granted with a deadline in
// (from, to], per UTC day of the deadline: the whole days between from the counts the triggers
// keep (record_expiring_days, migration 00019), the partial first and last day from the
// re-permission list's partial index. So the dashboard's 90 days cost two days of the index.
func (r *Records) ExpiringPerDay(ctx context.Context, tenantID string, consent tenants.ConsentName, from, to time.Time) (map[time.Time]int64, error) {
	index, ok := expiringIndexes[consent]
	if !ok {
		return nil, fmt.Errorf("expiring per day: no index of the deadlines of %q", consent)
	}
	st, dl := statusColumns[consent][0], statusColumns[consent][1]
	inIndex := func(after, until int64) (map[time.Time]int64, error) {
		return r.perDay(ctx, "expiring per day", `SELECT `+dl+` / ?, count(*) FROM records INDEXED BY `+index+`
			WHERE tenant_id = ? AND `+st+` = 'granted' AND `+dl+` IS NOT NULL AND anonymised_at IS NULL
			AND `+dl+` > ? AND `+dl+` <= ? GROUP BY 1`,
			dayMS, tenantID, after, until)
	}
	first, last := ms(from)/dayMS+1, ms(to)/dayMS // the whole days: [first, last)
	if ms(from) < 0 || last <= first {
		return inIndex(ms(from), ms(to))
	}
	out, err := inIndex(ms(from), first*dayMS-1)
	if err != nil {
		return nil, err
	}
	days, err := r.perDay(ctx, "expiring per day", `SELECT day, n FROM record_expiring_days
		WHERE tenant_id = ? AND channel = ? AND day >= ? AND day < ? AND n > 0`, tenantID, st[:2], first, last)
	if err != nil {
		return nil, err
	}
	end, err := inIndex(last*dayMS-1, ms(to))
	if err != nil {
		return nil, err
	}
	for _, m := range []map[time.Time]int64{days, end} {
		for d, n := range m {
			out[d] += n
		}
	}
	return out, nil
}

// perDay runs a query of (day number since the epoch, count) rows.
func (r *Records) perDay(ctx context.Context, op, query string, args ...any) (map[time.Time]int64, error) {
	rows, err := r.s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(op, err)
	}
	defer rows.Close()
	out := map[time.Time]int64{}
	for rows.Next() {
		var day, n int64
		if err := rows.Scan(&day, &n); err != nil {
			return nil, translate(op, err)
		}
		out[time.UnixMilli(day*dayMS).UTC()] = n
	}
	return out, translate(op, rows.Err())
}
