package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// expiringColumns are the status and deadline columns of the two general-contact consents
// and the name of their partial indexes of granted consents by deadline (migration 00006).
var expiringColumns = map[tenants.ConsentName][3]string{
	tenants.ConsentGeneralContactEmail: {"ge_status", "ge_deadline", "records_expiring_email"},
	tenants.ConsentGeneralContactPhone: {"gp_status", "gp_deadline", "records_expiring_phone"},
}

// Expiring returns one page of the re-permission list through the channel's partial index,
// in (deadline, kind, public id) order, which is the order of (deadline, record id).
func (r *Records) Expiring(ctx context.Context, tenantID string, q tenants.ExpiringQuery) ([]tenants.Record, error) {
	query, args, err := expiringQuery(tenantID, q)
	if err != nil {
		return nil, err
	}
	rows, err := queryAll(ctx, r.s.r, "expiring consents", scanRecord, query, args...)
	return records(rows), err
}

// expiringQuery is the query of one page. INDEXED BY names the index, so that the planner
// cannot choose another (it would have no statistics to tell them apart), and a change that
// made the index unusable fails loudly instead of scanning.
func expiringQuery(tenantID string, q tenants.ExpiringQuery) (string, []any, error) {
	cols, ok := expiringColumns[q.Consent]
	if !ok {
		return "", nil, fmt.Errorf("expiring consents: unknown consent %q", q.Consent)
	}
	st, dl, index := cols[0], cols[1], cols[2]
	where := []string{"tenant_id = :tenant", st + " = 'granted'", dl + " IS NOT NULL", "anonymised_at IS NULL", dl + " > :after", dl + " <= :until"}
	args := []any{sql.Named("tenant", tenantID), sql.Named("after", ms(q.After)), sql.Named("until", ms(q.Until)),
		sql.Named("limit", limitOrAll(int64(q.Limit)))}
	if q.FormID != "" {
		// form_id is the index's last column: the filter reads the index, not the table.
		where = append(where, "form_id = :form")
		args = append(args, sql.Named("form", q.FormID))
	}
	if q.Cursor != nil {
		kind, publicID, ok := splitRecordID(tenantID, q.Cursor.ID)
		if !ok {
			return "", nil, fmt.Errorf("expiring consents: cursor of another tenant")
		}
		where = append(where, "("+dl+", kind, public_id) > (:cd, :ck, :cp)")
		args = append(args, sql.Named("cd", ms(q.Cursor.Deadline)), sql.Named("ck", kind), sql.Named("cp", publicID))
	}
	return `SELECT ` + recordCols + ` FROM records INDEXED BY ` + index + ` WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + dl + `, kind, public_id LIMIT :limit`, args, nil
}

// Due returns the records retention anonymises, oldest first, through the retention indexes
// of records not yet anonymised.
func (r *Records) Due(ctx context.Context, tenantID string, q tenants.DueQuery) ([]tenants.Record, error) {
	cond, col, err := dueCondition(q)
	if err != nil {
		return nil, err
	}
	rows, err := queryAll(ctx, r.s.r, "due records", scanRecord, `SELECT `+recordCols+` FROM records `+cond+
		` ORDER BY `+col+`, rid LIMIT ?`, tenantID, q.FormID, ms(q.Before), limitOrAll(int64(q.Limit)))
	return records(rows), err
}

// CountDue counts the records Due would return, in the index.
func (r *Records) CountDue(ctx context.Context, tenantID string, q tenants.DueQuery) (int64, error) {
	cond, _, err := dueCondition(q)
	if err != nil {
		return 0, err
	}
	var n int64
	err = r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM records `+cond, tenantID, q.FormID, ms(q.Before)).Scan(&n)
	return n, translate("count due records", err)
}

// dueCondition is the index and condition of q (arguments: tenant, form, before) and its
// basis column; INDEXED BY as in expiringQuery.
func dueCondition(q tenants.DueQuery) (cond, col string, err error) {
	index := ""
	switch tenants.RetentionBasis(q.From) {
	case tenants.RetentionFromCreated:
		col, index = "created_at", "records_retain_created"
	case tenants.RetentionFromConsentsLapsed:
		col, index = "lapsed_at", "records_retain_lapsed"
	default:
		return "", "", fmt.Errorf("due records: unknown retention basis %q", q.From)
	}
	return "INDEXED BY " + index + " WHERE tenant_id = ? AND form_id = ? AND anonymised_at IS NULL AND " + col + " IS NOT NULL AND " +
		col + " <= ?", col, nil
}

// changeRows reads the records a change applies to: those named by id, each by a lookup of
// the unique (tenant, kind, public id) index, or those carrying its match keys.
func changeRows(ctx context.Context, q querier, ch tenants.Change) ([]recordRow, error) {
	if len(ch.RecordIDs) == 0 {
		return findRows(ctx, q, ch.TenantID, ch.MatchKeys, ch.Kinds)
	}
	var out []recordRow
	for _, id := range ch.RecordIDs {
		kind, publicID, ok := splitRecordID(ch.TenantID, id)
		if !ok || (len(ch.Kinds) > 0 && !slices.Contains(ch.Kinds, tenants.Kind(kind))) {
			continue // another tenant's record, or a kind not asked for: never reached
		}
		rows, err := q.QueryContext(ctx, `SELECT `+recordCols+` FROM records WHERE tenant_id = ? AND kind = ? AND public_id = ?`,
			ch.TenantID, kind, publicID)
		if err != nil {
			return nil, translate("records by id", err)
		}
		for rows.Next() {
			row, err := scanRecord(rows)
			if err != nil {
				rows.Close()
				return nil, translate("records by id", err)
			}
			out = append(out, row)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, translate("records by id", err)
		}
	}
	return out, nil
}

// splitRecordID returns the kind and public id of a record id (tenants.RecordID) of tenantID.
func splitRecordID(tenantID, id string) (kind, publicID string, ok bool) {
	rest, ok := strings.CutPrefix(id, tenantID+":")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, ":")
}

func records(rows []recordRow) []tenants.Record {
	out := make([]tenants.Record, len(rows))
	for i := range rows {
		out[i] = rows[i].rec
	}
	return out
}
