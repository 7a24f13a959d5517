package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Records reads the records table.
type Records struct{ s *Store }

var _ tenants.RecordRepo = (*Records)(nil)

// Get returns the tenant's record of kind with publicID.
func (r *Records) Get(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (tenants.Record, error) {
	row, err := scanRecord(cachedQuerier{cache: r.s.rq}.QueryRowContext(ctx, `SELECT `+recordCols+` FROM records
		WHERE tenant_id = ? AND kind = ? AND public_id = ?`, tenantID, kind, publicID))
	return row.rec, translate("get record", err)
}

// Find returns the tenant's records of kinds (every kind when none) that carry any of
// matchKeys, through the match key index.
func (r *Records) Find(ctx context.Context, tenantID string, matchKeys []string, kinds ...tenants.Kind) ([]tenants.Record, error) {
	rows, err := findRows(ctx, cachedQuerier{cache: r.s.rq}, tenantID, matchKeys, kinds)
	out := make([]tenants.Record, len(rows))
	for i := range rows {
		out[i] = rows[i].rec
	}
	return out, err
}

// findQuery is findRows' query of keys match keys and kinds kinds (none: every kind). The
// keys hold the tenant (the hash mixes it in); the records' tenant is checked as well, with
// "+" so that the planner reads through the match keys, never the tenant's records.
func findQuery(keys, kinds int) string {
	query := `SELECT ` + prefixed("r.", recordCols) + ` FROM records r WHERE r.rid IN (
		SELECT rid FROM match_keys WHERE key IN (` + placeholders(keys) + `)) AND +r.tenant_id = ?`
	if kinds > 0 {
		query += ` AND r.kind IN (` + placeholders(kinds) + `)`
	}
	return query + ` ORDER BY r.rid`
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// findRows reads the records carrying any of matchKeys, each once, in row order.
func findRows(ctx context.Context, q querier, tenantID string, matchKeys []string, kinds []tenants.Kind) ([]recordRow, error) {
	if len(matchKeys) == 0 {
		return []recordRow{}, nil // no key finds no row
	}
	args := make([]any, 0, len(matchKeys)+1+len(kinds))
	for _, k := range matchKeys {
		args = append(args, key16(k))
	}
	args = append(args, tenantID)
	for _, k := range kinds {
		args = append(args, string(k))
	}
	query := findQuery(len(matchKeys), len(kinds))
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate("find records", err)
	}
	defer rows.Close()
	var out []recordRow
	for rows.Next() {
		row, err := scanRecord(rows)
		if err != nil {
			return nil, translate("find records", err)
		}
		out = append(out, row)
	}
	return out, translate("find records", rows.Err())
}

// List returns a page of the tenant's records of kind, newest first, filtered by p.
func (r *Records) List(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page) ([]tenants.Record, error) {
	where, args, err := listWhere(tenantID, kind, p)
	if err != nil {
		return nil, err
	}
	where, args, order := cursorWhere(where, args, p.Cursor)
	args = append(args, sql.Named("limit", limitOrAll(p.Limit)))
	rows, err := queryAll(ctx, r.s.r, "list records", scanRecord, `SELECT `+recordCols+` FROM records`+statusIndex(p)+` WHERE `+
		where+` ORDER BY created_at `+order+`, rid `+order+` LIMIT :limit`, args...)
	out := make([]tenants.Record, len(rows))
	for i := range rows {
		out[i] = rows[i].rec
	}
	if order == "ASC" { // the newer rows were read closest first
		slices.Reverse(out)
	}
	return out, err
}

// cursorWhere adds a list's position to its condition: the rows on c's side of the row it
// names, (created_at, rid) past that row's, read from the position outwards (order). The
// range on created_at keeps the read on the list's index; the row's rid is looked up by its
// public id (a row that is gone leaves its time as the position).
func cursorWhere(where string, args []any, c *tenants.Cursor) (string, []any, string) {
	if c == nil {
		return where, args, "DESC"
	}
	op, order, gone := "<", "DESC", int64(0)
	if c.Newer {
		op, order, gone = ">", "ASC", math.MaxInt64
	}
	where += ` AND created_at ` + op + `= :cat AND (created_at ` + op + ` :cat OR rid ` + op + ` coalesce(
		(SELECT rid FROM records WHERE tenant_id = :tenant AND kind = :kind AND public_id = :cid), :cgone))`
	return where, append(args, sql.Named("cat", ms(c.Time)), sql.Named("cid", c.ID), sql.Named("cgone", gone)), order
}

// listWhere is the condition of a list's filters (form, consent status at p.Now, of live
// records) and its arguments.
func listWhere(tenantID string, kind tenants.Kind, p tenants.Page) (string, []any, error) {
	where := []string{"tenant_id = :tenant", "kind = :kind"}
	args := []any{sql.Named("tenant", tenantID), sql.Named("kind", string(kind)), sql.Named("now", ms(p.Now))}
	if p.FormID != "" {
		where = append(where, "form_id = :form")
		args = append(args, sql.Named("form", p.FormID))
	}
	if p.Status != "" {
		cond, err := statusFilter(p.Consent, p.Status)
		if err != nil {
			return "", nil, err
		}
		// An anonymised record's consents are nobody's: a status filter lists live records,
		// as the dashboard counts them.
		where = append(where, cond, "anonymised_at IS NULL")
	}
	return strings.Join(where, " AND "), args, nil
}

// statusIndexes are the partial indexes (migration 00018) of the live records holding a
// consent in a status few records hold, newest first: a list or count filtered by that status
// reads them instead of passing over the records of every other status.
var statusIndexes = map[tenants.ConsentName]map[tenants.ConsentStatus]string{
	tenants.ConsentPrimaryPurpose: {tenants.StatusRevoked: "records_revoked_pp"},
	tenants.ConsentGeneralContactEmail: {tenants.StatusRevoked: "records_revoked_ge",
		tenants.StatusPending: "records_pending_ge", tenants.StatusLapsed: "records_pending_ge"},
	tenants.ConsentGeneralContactPhone: {tenants.StatusRevoked: "records_revoked_gp",
		tenants.StatusPending: "records_pending_gp", tenants.StatusLapsed: "records_pending_gp"},
}

// statusIndex is the INDEXED BY clause of a list or count filtered by p, "" where none serves.
// (Without it the planner, having no statistics, would read the index of creation times.)
func statusIndex(p tenants.Page) string {
	if index := statusIndexes[p.Consent][p.Status]; index != "" && p.Consent != "" {
		return " INDEXED BY " + index
	}
	return ""
}

// statusFilter is the condition of a status filter on one consent or ("") on any of them.
func statusFilter(consent tenants.ConsentName, status tenants.ConsentStatus) (string, error) {
	names := []tenants.ConsentName{consent}
	if consent == "" {
		names = tenants.ConsentNames()
	}
	var conds []string
	for _, n := range names {
		c, ok := statusIs(n, status)
		if !ok {
			return "", fmt.Errorf("list records: unknown consent %q or status %q", consent, status)
		}
		conds = append(conds, c)
	}
	return "(" + strings.Join(conds, " OR ") + ")", nil
}

func limitOrAll(limit int64) int64 {
	if limit <= 0 {
		return -1 // SQLite: no limit
	}
	return limit
}

// Count returns how many records of kind the tenant has (counted in the index).
func (r *Records) Count(ctx context.Context, tenantID string, kind tenants.Kind) (int64, error) {
	var n int64
	err := r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE tenant_id = ? AND kind = ?`, tenantID, kind).Scan(&n)
	return n, translate("count records", err)
}

// ConsentStats counts the tenant's live records of kind per consent and status at now,
// deadlines applied, and its anonymised ones apart. The stored statuses come from record_stats
// (migration 00017: a few rows per tenant and kind, kept by triggers); a consent stored as
// granted whose deadline has passed, which the expiry job has not rewritten yet, reads expired:
// those records are found through the expiry job's index of next deadlines (each has one at or
// before now) and moved from granted to expired. No pass over the tenant's records.
func (r *Records) ConsentStats(ctx context.Context, tenantID string, kind tenants.Kind, now time.Time) (tenants.ConsentStats, error) {
	var out tenants.ConsentStats
	tx, err := r.s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, translate("consent stats", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT anonymised, pp_status, ge_status, gp_status, n FROM record_stats
		WHERE tenant_id = ? AND kind = ? AND n > 0`, tenantID, string(kind))
	if err != nil {
		return out, translate("consent stats", err)
	}
	var live int64
	type counted struct{ granted, expired, revoked int64 }
	per := make([]counted, len(tenants.ConsentNames()))
	add := func(i int, status string, n int64) {
		switch tenants.ConsentStatus(status) {
		case tenants.StatusGranted:
			per[i].granted += n
		case tenants.StatusExpired:
			per[i].expired += n
		case tenants.StatusRevoked:
			per[i].revoked += n
		}
	}
	for rows.Next() {
		var anonymised bool
		var st [3]string
		var n int64
		if err := rows.Scan(&anonymised, &st[0], &st[1], &st[2], &n); err != nil {
			rows.Close()
			return out, translate("consent stats", err)
		}
		if anonymised {
			out.Anonymised += n
			continue
		}
		live += n
		for i := range tenants.ConsentNames() {
			add(i, st[consentColumn(tenants.ConsentNames()[i])], n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, translate("consent stats", err)
	}
	// Granted with a deadline that has passed: expired at now.
	rows, err = tx.QueryContext(ctx, `SELECT pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline
		FROM records INDEXED BY records_due WHERE next_deadline IS NOT NULL AND next_deadline <= ?
		AND tenant_id = ? AND kind = ? AND anonymised_at IS NULL`, ms(now), tenantID, string(kind))
	if err != nil {
		return out, translate("consent stats", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st [3]string
		var dl [3]sql.NullInt64
		if err := rows.Scan(&st[0], &dl[0], &st[1], &dl[1], &st[2], &dl[2]); err != nil {
			return out, translate("consent stats", err)
		}
		for i := range tenants.ConsentNames() {
			c := consentColumn(tenants.ConsentNames()[i])
			if tenants.ConsentStatus(st[c]) == tenants.StatusGranted && dl[c].Valid && dl[c].Int64 <= ms(now) {
				per[i].granted--
				per[i].expired++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return out, translate("consent stats", err)
	}
	for i, name := range tenants.ConsentNames() {
		c := out.Of(name)
		c.NotGranted = live - per[i].granted - per[i].expired - per[i].revoked
		c.Add(tenants.StatusGranted, per[i].granted)
		c.Add(tenants.StatusExpired, per[i].expired)
		c.Add(tenants.StatusRevoked, per[i].revoked)
	}
	return out, nil
}

// consentColumn is the place of a consent's status in record_stats' (pp, ge, gp) order.
func consentColumn(name tenants.ConsentName) int {
	switch name {
	case tenants.ConsentGeneralContactEmail:
		return 1
	case tenants.ConsentGeneralContactPhone:
		return 2
	}
	return 0
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// prefixed qualifies every column of a column list.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ", ")
	for i := range parts {
		parts[i] = p + parts[i]
	}
	return strings.Join(parts, ", ")
}
