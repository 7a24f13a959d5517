package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/consentforms/consentforms/batch"
	"github.com/consentforms/consentforms/tenants"
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

func newWriter(ctx context.Context, s *Store, obs tenants.Observer) (*Writer, error) {
	st, err := prepare(ctx, s.w)
	if err != nil {
		return nil, err
	}
	w := &Writer{s: s, st: st, stop: make(chan struct{})}
	w.batch = batch.New(maxBatch, w.write, batch.Observer(obs))
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
	err := w.inTx(ctx, func(tx *sql.Tx, st statements) error {
		if err := insertIngestions(ctx, st, batch); err != nil {
			return err
		}
		return insertOutbox(ctx, tx, ingestionEvents(batch))
	})
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

// The statements of an ingestion, prepared once: SQLite would otherwise parse them again for
// every record. A record whose tenant, kind and public id exist is not inserted and returns
// no row.
const (
	insertRecord = `INSERT INTO records (tenant_id, kind, public_id, form_id, created_at,
	pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline, next_deadline, anonymised_at, body, lapsed_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (tenant_id, kind, public_id) DO NOTHING RETURNING rid`
	insertKey = `INSERT INTO match_keys (tenant_id, key, rid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
)

// statements are the writing connection's prepared statements.
type statements struct {
	record, key, audit, head *sql.Stmt
	// heads are the chain heads a transaction read or moved (appendAudit), per tenant.
	heads map[string]tenants.ChainHead
}

func prepare(ctx context.Context, db *sql.DB) (statements, error) {
	var st statements
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{{&st.record, insertRecord}, {&st.key, insertKey}, {&st.audit, insertAudit}, {&st.head, chainHead}} {
		s, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			return st, fmt.Errorf("prepare: %w", err)
		}
		*p.dst = s
	}
	return st, nil
}

// in returns the statements bound to tx.
func (st statements) in(ctx context.Context, tx *sql.Tx) statements {
	return statements{record: tx.StmtContext(ctx, st.record), key: tx.StmtContext(ctx, st.key), audit: tx.StmtContext(ctx, st.audit),
		head: tx.StmtContext(ctx, st.head), heads: map[string]tenants.ChainHead{}}
}

// insertIngestions writes records with their match keys and audit entries; job.stored is
// false for a record whose tenant, kind and public id exist (nothing of it is written).
func insertIngestions(ctx context.Context, st statements, jobs []*ingestJob) error {
	for _, j := range jobs {
		r, d := j.in.Record, j.d
		var rid int64
		err := st.record.QueryRowContext(ctx, r.TenantID, string(r.Kind), r.PublicID, r.FormID, ms(r.CreatedAt), d.ppStatus,
			d.ppDeadline, d.geStatus, d.geDeadline, d.gpStatus, d.gpDeadline, d.nextDeadline, d.anonymisedAt, d.body, d.lapsedAt).Scan(&rid)
		if errors.Is(err, sql.ErrNoRows) {
			j.stored = false
			continue
		}
		if err != nil {
			return translate("insert record", err)
		}
		j.stored = true
		if err := insertKeys(ctx, st, r.TenantID, rid, r.MatchKeys); err != nil {
			return err
		}
		if err := appendAudit(ctx, st, j.in.Audit); err != nil {
			return err
		}
	}
	return nil
}

func insertKeys(ctx context.Context, st statements, tenantID string, rid int64, keys []string) error {
	for _, k := range keys {
		if _, err := st.key.ExecContext(ctx, tenantID, k, rid); err != nil {
			return translate("insert match key", err)
		}
	}
	return nil
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
