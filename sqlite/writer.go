package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// maxBatch bounds how many ingestions one transaction writes.
const maxBatch = 256

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// ErrWriterClosed is returned for work handed to a writer that has stopped.
var ErrWriterClosed = errors.New("writer closed")

// Writer makes every change to records. Ingestions are grouped: a batch takes whatever queued
// while the previous one was written (a lone request waits for nobody) and writes it in one
// transaction, so one fsync makes a whole batch durable. Erasure, revocation and expiry are
// one transaction each. All of them share the store's one writing connection.
type Writer struct {
	s       *Store
	work    chan *ingestJob
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once

	mu sync.Mutex
	// scrubPending is set when an erasure's checkpoint failed: the next erasure, even one that
	// matches nothing, completes it.
	scrubPending bool
}

var _ tenants.Writer = (*Writer)(nil)

type ingestJob struct {
	in     tenants.Ingestion
	d      derived
	stored bool
	err    error
	done   chan struct{}
}

func newWriter(s *Store) *Writer {
	w := &Writer{s: s, work: make(chan *ingestJob, 4*maxBatch), stop: make(chan struct{}), stopped: make(chan struct{})}
	go w.loop()
	return w
}

// Ingest implements tenants.Writer.
func (w *Writer) Ingest(ctx context.Context, in tenants.Ingestion) (bool, error) {
	d, err := derive(in.Record)
	if err != nil {
		return false, err
	}
	j := &ingestJob{in: in, d: d, done: make(chan struct{})}
	select {
	case <-w.stop:
		return false, ErrWriterClosed
	default:
	}
	select {
	case w.work <- j:
	case <-w.stop:
		return false, ErrWriterClosed
	case <-ctx.Done():
		return false, ctx.Err()
	}
	// The batch is written whether or not this request waits for it.
	select {
	case <-j.done:
		return j.stored, j.err
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// close stops accepting work, writes what is queued and returns.
func (w *Writer) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.stopped
}

func (w *Writer) loop() {
	defer close(w.stopped)
	for {
		select {
		case first := <-w.work:
			w.write(w.collect(first))
		case <-w.stop:
			for {
				select {
				case j := <-w.work:
					w.write(w.collect(j))
				default:
					return
				}
			}
		}
	}
}

// collect takes first and whatever else is queued, up to maxBatch.
func (w *Writer) collect(first *ingestJob) []*ingestJob {
	batch := []*ingestJob{first}
	for len(batch) < maxBatch {
		select {
		case j := <-w.work:
			batch = append(batch, j)
		default:
			return batch
		}
	}
	return batch
}

// write stores a batch in one transaction. Should any statement fail, the transaction is
// rolled back and each ingestion is written in a transaction of its own, so that an error
// reaches only the request it belongs to.
func (w *Writer) write(batch []*ingestJob) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		for _, j := range batch {
			var err error
			if j.stored, err = insertIngestion(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && len(batch) > 1 {
		for _, j := range batch {
			w.write([]*ingestJob{j})
		}
		return
	}
	for _, j := range batch {
		if err != nil {
			j.stored, j.err = false, err
		}
		close(j.done)
	}
}

// insertIngestion writes a record, its match keys and its audit entries; a record whose
// tenant, kind and public id exist writes nothing and reports false.
func insertIngestion(ctx context.Context, tx *sql.Tx, j *ingestJob) (bool, error) {
	r, d := j.in.Record, j.d
	var rid int64
	err := tx.QueryRowContext(ctx, `INSERT INTO records (tenant_id, kind, public_id, form_id, created_at,
		pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline, next_deadline, anonymised_at, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, kind, public_id) DO NOTHING RETURNING rid`,
		r.TenantID, string(r.Kind), r.PublicID, r.FormID, ms(r.CreatedAt), d.ppStatus, d.ppDeadline, d.geStatus,
		d.geDeadline, d.gpStatus, d.gpDeadline, d.nextDeadline, d.anonymisedAt, d.body).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, translate("insert record", err)
	}
	if err := insertKeys(ctx, tx, r.TenantID, rid, r.MatchKeys); err != nil {
		return false, err
	}
	return true, appendAudit(ctx, tx, j.in.Audit)
}

func insertKeys(ctx context.Context, tx *sql.Tx, tenantID string, rid int64, keys []string) error {
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO match_keys (tenant_id, key, rid) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, tenantID, k, rid); err != nil {
			return translate("insert match key", err)
		}
	}
	return nil
}

// inTx runs fn in a transaction on the writing connection and commits it.
func (w *Writer) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := w.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("begin", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return translate("commit", tx.Commit())
}
