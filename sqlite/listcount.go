package sqlite

import (
	"context"
	"database/sql"

	"github.com/consentforms/consentforms/tenants"
)

// CountUpTo counts the records List would list under p's filters (its paging aside), stopping
// at most: a list's total costs at most most index entries, never the whole table.
func (r *Records) CountUpTo(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page, most int64) (int64, error) {
	where, args, err := listWhere(tenantID, kind, p)
	if err != nil {
		return 0, err
	}
	var n int64
	err = r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM records`+statusIndex(p)+` WHERE `+where+` LIMIT :most)`,
		append(args, sql.Named("most", most))...).Scan(&n)
	return n, translate("count records", err)
}
