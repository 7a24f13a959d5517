package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/batch"
)

// maxBatch bounds how many ingestions one transaction writes.
const maxBatch = 256

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// Writer makes every change to records. Ingestions are grouped (package batch) and each batch
// is written in one transaction, so one fsync makes a whole batch durable. Erasure, revocation
// and expiry are one transaction each. All of them share the store's one writing connection.
type Writer struct {
	s     *Store
	st    statements
	batch *batch.Batcher[*ingestJob]
	stop  chan struct{}
	once  sync.Once

	mu sync.Mutex
	// pending is set while an erasure's scrub is not done; the scrubber completes it.
	pending    bool
	background sync.WaitGroup
}

var _ tenants.Writer = (*Writer)(nil)

type ingestJob struct {
	in     tenants.Ingestion
	d      derived
	stored bool
	err    error
}

func newWriter(ctx context.Context, s *Store) (*Writer, error) {
	st, err := prepare(ctx, s.w)
	if err != nil {
		return nil, err
	}
	w := &Writer{s: s, st: st, stop: make(chan struct{})}
	w.batch = batch.New(maxBatch, w.write)
	w.background.Add(1)
	go w.scrubber()
	return w, nil
}

// Ingest implements tenants.Writer.
func (w *Writer) Ingest(ctx context.Context, in tenants.Ingestion) (bool, error) {
	d, err := derive(in.Record)
	if err != nil {
		return false, err
	}
	j := &ingestJob{in: in, d: d}
	if err := w.batch.Do(ctx, j); err != nil {
		return false, err
	}
	return j.stored, j.err
}

// close writes what is queued, stops the background work and returns.
func (w *Writer) close() {
	w.once.Do(func() {
		w.batch.Close()
		close(w.stop)
	})
	w.background.Wait()
}

// write stores a batch in one transaction. Should any statement fail, the transaction is
// rolled back and each ingestion is written in a transaction of its own, so that an error
// reaches only the request it belongs to.
func (w *Writer) write(batch []*ingestJob) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := w.inTx(ctx, func(_ *sql.Tx, st statements) error { return insertIngestions(ctx, st, batch) })
	if err != nil && len(batch) > 1 {
		for _, j := range batch {
			w.write([]*ingestJob{j})
		}
		return
	}
	if err != nil {
		batch[0].stored, batch[0].err = false, err
	}
}

// insertRecord is the statement storing one record, prepared once: SQLite would otherwise
// parse it again for every record. A record whose tenant, kind and public id exist is not
// inserted and returns no row.
const insertRecord = `INSERT INTO records (tenant_id, kind, public_id, form_id, created_at,
	pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline, next_deadline, anonymised_at, body)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (tenant_id, kind, public_id) DO NOTHING RETURNING rid`

// statements are the writing connection's prepared statements.
type statements struct {
	record, audit *sql.Stmt
	tx            *sql.Tx // set once bound to a transaction
}

func prepare(ctx context.Context, db *sql.DB) (statements, error) {
	var st statements
	var err error
	if st.record, err = db.PrepareContext(ctx, insertRecord); err != nil {
		return st, fmt.Errorf("prepare: %w", err)
	}
	if st.audit, err = db.PrepareContext(ctx, insertAudit); err != nil {
		return st, fmt.Errorf("prepare: %w", err)
	}
	return st, nil
}

// in returns the statements bound to tx.
func (st statements) in(ctx context.Context, tx *sql.Tx) statements {
	return statements{record: tx.StmtContext(ctx, st.record), audit: tx.StmtContext(ctx, st.audit), tx: tx}
}

// insertIngestions writes records with their match keys and audit entries; job.stored is
// false for a record whose tenant, kind and public id exist (nothing of it is written). The
// match keys and audit entries of all the records go in a few multi-row statements: per
// statement, not per row, is where most of the cost of a small insert lies.
func insertIngestions(ctx context.Context, st statements, jobs []*ingestJob) error {
	var keys, audit [][]any
	for _, j := range jobs {
		r, d := j.in.Record, j.d
		var rid int64
		err := st.record.QueryRowContext(ctx, r.TenantID, string(r.Kind), r.PublicID, r.FormID, ms(r.CreatedAt), d.ppStatus,
			d.ppDeadline, d.geStatus, d.geDeadline, d.gpStatus, d.gpDeadline, d.nextDeadline, d.anonymisedAt, d.body).Scan(&rid)
		if errors.Is(err, sql.ErrNoRows) {
			j.stored = false
			continue
		}
		if err != nil {
			return translate("insert record", err)
		}
		j.stored = true
		for _, k := range r.MatchKeys {
			keys = append(keys, []any{r.TenantID, k, rid})
		}
		for _, e := range j.in.Audit {
			args, err := auditArgs(e)
			if err != nil {
				return err
			}
			audit = append(audit, args)
		}
	}
	if err := insertRows(ctx, st.tx, insertKeyPrefix, ` ON CONFLICT DO NOTHING`, keys); err != nil {
		return translate("insert match keys", err)
	}
	return translate("append audit", insertRows(ctx, st.tx, insertAuditPrefix, auditConflict, audit))
}

const insertKeyPrefix = `INSERT INTO match_keys (tenant_id, key, rid) VALUES `

// maxRowsPerStatement keeps a multi-row insert well under SQLite's limit of bound parameters.
const maxRowsPerStatement = 500

// insertRows inserts rows (each one row's values) with multi-row statements.
func insertRows(ctx context.Context, tx *sql.Tx, prefix, suffix string, rows [][]any) error {
	for len(rows) > 0 {
		n := min(len(rows), maxRowsPerStatement)
		var q strings.Builder
		q.WriteString(prefix)
		args := make([]any, 0, n*len(rows[0]))
		for i, row := range rows[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(" + placeholders(len(row)) + ")")
			args = append(args, row...)
		}
		q.WriteString(suffix)
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func insertKeys(ctx context.Context, st statements, tenantID string, rid int64, keys []string) error {
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{tenantID, k, rid}
	}
	return translate("insert match keys", insertRows(ctx, st.tx, insertKeyPrefix, ` ON CONFLICT DO NOTHING`, rows))
}

// inTx runs fn in a transaction on the writing connection, with the prepared statements
// bound to it, and commits it.
func (w *Writer) inTx(ctx context.Context, fn func(tx *sql.Tx, st statements) error) error {
	tx, err := w.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("begin", err)
	}
	if err := fn(tx, w.st.in(ctx, tx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	return translate("commit", tx.Commit())
}
