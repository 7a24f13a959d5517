package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// Audit is the append-only audit log: one row per entry, read newest first through an index
// per filter (tenant, tenant+action, tenant+actor, and time alone for the platform admin).
type Audit struct{ s *Store }

var _ tenants.AuditRepo = (*Audit)(nil)

const auditCols = `id, time, tenant_id, actor, action, record_ids, counts, subject, detail, request_id, chain, prev, hash`

// insertAudit is the statement appending one entry; an id that exists appends nothing.
const insertAudit = `INSERT INTO audit (` + auditCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// chainHead reads the last entry of a tenant's chain.
const chainHead = `SELECT chain, hash FROM audit WHERE tenant_id = ? AND chain IS NOT NULL ORDER BY chain DESC LIMIT 1`

// Append stores entries in one transaction.
func (r *Audit) Append(ctx context.Context, entries ...tenants.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	return r.s.Writer.inTx(ctx, func(_ *sql.Tx, st statements) error { return appendAudit(ctx, st, entries) })
}

// appendAudit writes entries at the ends of their tenants' chains, giving each without an id
// a fresh one. It runs in the writing connection's transaction, which holds SQLite's write
// lock from its start (BEGIN IMMEDIATE): no other append, of this process or another, can
// read or move a chain's head until it commits, so chains never fork. The transaction keeps
// the heads it read or moved, so a batch reads each tenant's head once.
func appendAudit(ctx context.Context, st statements, entries []tenants.AuditEntry) error {
	for _, e := range entries {
		head, err := st.chainEnd(ctx, e.TenantID)
		if err != nil {
			return err
		}
		next := head.Link(&e)
		args, err := auditArgs(e)
		if err != nil {
			return err
		}
		res, err := st.audit.ExecContext(ctx, args...)
		if err != nil {
			return translate("append audit", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			head = next
		}
		// An entry whose id exists was not appended: the head stays.
		st.heads[e.TenantID] = head
	}
	return nil
}

// chainEnd is the end of the tenant's chain as this transaction last left it, read from the
// index on its first use.
func (st statements) chainEnd(ctx context.Context, tenantID string) (tenants.ChainHead, error) {
	head, ok := st.heads[tenantID]
	if !ok {
		err := st.head.QueryRowContext(ctx, tenantID).Scan(&head.Chain, &head.Hash)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return head, translate("read audit chain", err)
		}
	}
	return head, nil
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
	chain := sql.NullInt64{Int64: e.Chain, Valid: e.Chain > 0}
	return []any{e.ID, ms(e.Time), e.TenantID, e.Actor, e.Action, ids, counts, e.Subject, e.Detail, e.RequestID, chain, e.Prev, e.Hash}, nil
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
	_, err := r.page(ctx, tenantID, f, nil, func(e tenants.AuditEntry) error {
		out = append(out, e)
		return nil
	})
	if f.Cursor != nil && f.Cursor.Newer { // read closest first
		slices.Reverse(out)
	}
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

// eachChunk is how many entries one query of a stream reads. A stream reads chunk after
// chunk, each continuing after the last entry of the one before: no read holds a snapshot
// for the whole of a long export, which would keep an erasure's scrub waiting.
const eachChunk = 2000

func (r *Audit) each(ctx context.Context, tenantID *string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error {
	if f.Cursor != nil && f.Cursor.Newer {
		// A page of newer entries is read closest first in one query, then listed newest first.
		var got []tenants.AuditEntry
		if _, err := r.page(ctx, tenantID, f, nil, func(e tenants.AuditEntry) error {
			got = append(got, e)
			return nil
		}); err != nil {
			return err
		}
		slices.Reverse(got)
		for _, e := range got {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	remaining := f.Limit
	f.Limit = eachChunk
	var after *cursor
	for {
		if remaining > 0 && remaining < f.Limit {
			f.Limit = remaining
		}
		last, err := r.page(ctx, tenantID, f, after, fn)
		if err != nil || last.n < f.Limit {
			return err
		}
		if remaining > 0 {
			if remaining -= last.n; remaining == 0 {
				return nil
			}
		}
		after, f.Cursor = &last, nil
	}
}

// cursor is the position of the last entry a page read.
type cursor struct {
	time, seq, n int64
}

// page runs the filtered query, after the cursor when given; a nil tenantID spans tenants.
func (r *Audit) page(ctx context.Context, tenantID *string, f tenants.AuditFilter, after *cursor, fn func(tenants.AuditEntry) error) (cursor, error) {
	q, args := auditQuery(tenantID, f, after)
	var last cursor
	rows, err := r.s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return last, translate("list audit", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, seq, err := scanAuditSeq(rows)
		if err != nil {
			return last, translate("list audit", err)
		}
		if err := fn(e); err != nil {
			return last, err
		}
		last = cursor{time: ms(e.Time), seq: seq, n: last.n + 1}
	}
	return last, translate("list audit", rows.Err())
}

// scanAuditSeq reads an entry selected with its sequence number first.
func scanAuditSeq(row scanner) (tenants.AuditEntry, int64, error) {
	var seq int64
	e, err := scanAuditInto(row, &seq)
	return e, seq, err
}

func scanAudit(row scanner) (tenants.AuditEntry, error) { return scanAuditInto(row) }

// scanAuditInto reads an entry selected as auditCols, after the destinations before.
func scanAuditInto(row scanner, before ...any) (tenants.AuditEntry, error) {
	var e tenants.AuditEntry
	var at int64
	var ids, counts sql.NullString
	var chain sql.NullInt64
	dest := append(before, &e.ID, &at, &e.TenantID, &e.Actor, &e.Action, &ids, &counts, &e.Subject, &e.Detail, &e.RequestID, &chain, &e.Prev, &e.Hash)
	if err := row.Scan(dest...); err != nil {
		return e, err
	}
	e.Time, e.Chain = fromMS(at), chain.Int64
	return e, decodeAuditJSON(&e, ids, counts)
}

func decodeAuditJSON(e *tenants.AuditEntry, ids, counts sql.NullString) error {
	if ids.Valid {
		if err := json.Unmarshal([]byte(ids.String), &e.RecordIDs); err != nil {
			return err
		}
	}
	if counts.Valid {
		if err := json.Unmarshal([]byte(counts.String), &e.Counts); err != nil {
			return err
		}
	}
	return nil
}

// auditQuery is page's query and its arguments.
func auditQuery(tenantID *string, f tenants.AuditFilter, after *cursor) (string, []any) {
	var where []string
	args := []any{sql.Named("limit", limitOrAll(f.Limit))}
	add := func(cond, name string, v any) {
		where = append(where, cond)
		args = append(args, sql.Named(name, v))
	}
	if tenantID != nil {
		add("tenant_id = :tenant", "tenant", *tenantID)
	}
	if f.Action != "" {
		// With an actor as well, the index of actors serves (one actor's entries are few; an
		// action such as consent.granted is most of the log): "+" keeps the planner, which has
		// no statistics, off the index of actions.
		cond := "action = :action"
		if f.Actor != "" && tenantID != nil {
			cond = "+action = :action"
		}
		add(cond, "action", f.Action)
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
	order := "DESC"
	if after != nil {
		add("(time < :at OR (time = :at AND seq < :seq))", "at", after.time)
		args = append(args, sql.Named("seq", after.seq))
	} else if c := f.Cursor; c != nil {
		// As a record list's position (cursorWhere): the range on time keeps the index.
		op, gone := "<", int64(0)
		if c.Newer {
			op, order, gone = ">", "ASC", math.MaxInt64
		}
		add(`time `+op+`= :cat AND (time `+op+` :cat OR seq `+op+` coalesce((SELECT seq FROM audit WHERE id = :cid), :cgone))`, "cat", ms(c.Time))
		args = append(args, sql.Named("cid", c.ID), sql.Named("cgone", gone))
	}
	q := `SELECT seq, ` + auditCols + ` FROM audit`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	return q + ` ORDER BY time ` + order + `, seq ` + order + ` LIMIT :limit`, args
}
