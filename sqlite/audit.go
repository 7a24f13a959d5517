package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// Audit is the append-only audit log: one row per entry, read newest first through an index
// per filter (tenant, tenant+action, tenant+actor, and time alone for the platform admin).
type Audit struct{ s *Store }

var _ tenants.AuditRepo = (*Audit)(nil)

const auditCols = `id, time, tenant_id, actor, action, record_ids, counts, subject, detail, request_id`

// insertAudit is the statement appending one entry; an id that exists appends nothing.
const insertAudit = `INSERT INTO audit (` + auditCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// Append stores entries in one transaction.
func (r *Audit) Append(ctx context.Context, entries ...tenants.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	tx, err := r.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("append audit", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := appendAudit(ctx, tx, entries); err != nil {
		return err
	}
	return translate("append audit", tx.Commit())
}

// appendAudit writes entries in tx, giving each without an id a fresh one.
func appendAudit(ctx context.Context, tx *sql.Tx, entries []tenants.AuditEntry) error {
	for _, e := range entries {
		args, err := auditArgs(e)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insertAudit, args...); err != nil {
			return translate("append audit", err)
		}
	}
	return nil
}

func auditArgs(e tenants.AuditEntry) ([]any, error) {
	if e.ID == "" {
		e.ID = tenants.NewAuditID(e.Time)
	}
	var ids, counts sql.NullString
	if len(e.RecordIDs) > 0 {
		b, err := json.Marshal(e.RecordIDs)
		if err != nil {
			return nil, err
		}
		ids = sql.NullString{String: string(b), Valid: true}
	}
	if len(e.Counts) > 0 {
		b, err := json.Marshal(e.Counts)
		if err != nil {
			return nil, err
		}
		counts = sql.NullString{String: string(b), Valid: true}
	}
	return []any{e.ID, ms(e.Time), e.TenantID, e.Actor, e.Action, ids, counts, e.Subject, e.Detail, e.RequestID}, nil
}

// List returns the tenant's entries matching f, newest first.
func (r *Audit) List(ctx context.Context, tenantID string, f tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	return r.list(ctx, &tenantID, f)
}

// ListAll returns every tenant's entries matching f, newest first.
func (r *Audit) ListAll(ctx context.Context, f tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	return r.list(ctx, nil, f)
}

func (r *Audit) list(ctx context.Context, tenantID *string, f tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	var out []tenants.AuditEntry
	err := r.each(ctx, tenantID, f, func(e tenants.AuditEntry) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// Each streams the tenant's entries matching f to fn, newest first.
func (r *Audit) Each(ctx context.Context, tenantID string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error {
	return r.each(ctx, &tenantID, f, fn)
}

// EachAll streams every tenant's entries matching f to fn, newest first.
func (r *Audit) EachAll(ctx context.Context, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error {
	return r.each(ctx, nil, f, fn)
}

// each runs the filtered query; a nil tenantID spans tenants.
func (r *Audit) each(ctx context.Context, tenantID *string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error {
	var where []string
	args := []any{sql.Named("limit", limitOrAll(f.Limit)), sql.Named("skip", f.Skip)}
	add := func(cond, name string, v any) {
		where = append(where, cond)
		args = append(args, sql.Named(name, v))
	}
	if tenantID != nil {
		add("tenant_id = :tenant", "tenant", *tenantID)
	}
	if f.Action != "" {
		add("action = :action", "action", f.Action)
	}
	if f.Actor != "" {
		add("actor = :actor", "actor", f.Actor)
	}
	if !f.From.IsZero() {
		add("time >= :from", "from", ms(f.From))
	}
	if !f.To.IsZero() {
		add("time < :to", "to", ms(f.To))
	}
	q := `SELECT ` + auditCols + ` FROM audit`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := r.s.r.QueryContext(ctx, q+` ORDER BY time DESC, seq DESC LIMIT :limit OFFSET :skip`, args...)
	if err != nil {
		return translate("list audit", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return translate("list audit", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return translate("list audit", rows.Err())
}

func scanAudit(row scanner) (tenants.AuditEntry, error) {
	var e tenants.AuditEntry
	var at int64
	var ids, counts sql.NullString
	if err := row.Scan(&e.ID, &at, &e.TenantID, &e.Actor, &e.Action, &ids, &counts, &e.Subject, &e.Detail, &e.RequestID); err != nil {
		return e, err
	}
	e.Time = fromMS(at)
	if ids.Valid {
		if err := json.Unmarshal([]byte(ids.String), &e.RecordIDs); err != nil {
			return e, err
		}
	}
	if counts.Valid {
		if err := json.Unmarshal([]byte(counts.String), &e.Counts); err != nil {
			return e, err
		}
	}
	return e, nil
}
