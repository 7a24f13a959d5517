package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/consentforms/consentforms/batch"
	"github.com/consentforms/consentforms/tenants"
)

// maxBatch bounds how many ingestions one transaction writes.
const maxBatch = 256

// A batch of webhook delivery outcomes below minOutcomes waits up to outcomeLinger for more:
// they arrive one per attempt, and while deliveries flow, one transaction for a few of them
// cost the writing connection about 100 µs per outcome (the transaction's begin and commit,
// the same pages written again). The dispatcher does not wait for its outcomes to go on.
const (
	minOutcomes   = 64
	outcomeLinger = 10 * time.Millisecond
)

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// Writer makes every change to records. Ingestions are grouped (package batch) and each batch
// is written in one transaction with one multi-row INSERT per table; its fsync runs beside the
// writer (durable.go), which meanwhile writes the next batch. Erasure, revocation and expiry
// are one transaction each, durable at their commit. All of them share the store's one
// writing connection.
type Writer struct {
	s     *Store
	st    statements
	batch *batch.Batcher[*ingestJob]
	// deliveries batches the outcomes of webhook delivery attempts (Outbox.Update).
	deliveries *batch.Batcher[*deliveryUpdate]
	sync       *syncer
	cp         checkpointer
	stop       chan struct{}
	once       sync.Once

	mu sync.Mutex
	// pending is set while an erasure's scrub is not done; the scrubber completes it.
	pending    bool
	background sync.WaitGroup
	// multi caches the multi-row statements by query (writer goroutine only).
	multi map[string]*sql.Stmt
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
	w := &Writer{s: s, st: st, stop: make(chan struct{}), sync: newSyncer(s.path + "-wal"), cp: checkpointer{db: s.cp, path: s.path},
		multi: map[string]*sql.Stmt{}}
	w.cp.openIndex()
	w.batch = batch.NewPipelined(maxBatch, minBatch, w.write, w.sync.busy, batch.Observer(obs))
	w.deliveries = batch.NewLingering(maxBatch, minOutcomes, outcomeLinger, w.updateDeliveries)
	w.background.Add(2)
	go w.scrubber()
	go w.cp.run(w.stop, w.background.Done)
	return w, nil
}

// Ingest implements tenants.Writer.
func (w *Writer) Ingest(ctx context.Context, in tenants.Ingestion) (bool, error) {
	d, err := derive(in.Record)
	if err != nil {
		return false, err
	}
	if discardIngest {
		return true, nil
	}
	j := &ingestJob{in: in, d: d}
	if err := w.batch.Do(ctx, j); err != nil {
		return false, err
	}
	return j.stored, j.err
}

// close writes what is queued, waits for its fsync, stops the background work and returns.
func (w *Writer) close() {
	w.once.Do(func() {
		w.deliveries.Close()
		w.batch.Close()
		w.sync.close()
		close(w.stop)
	})
	w.background.Wait()
}

// write stores a batch in one transaction committed without waiting for the disk, hands it
// to the syncer, and returns: done answers the batch's requests once the log is on disk.
// Should any statement fail, the transaction is rolled back and each ingestion is written in a
// transaction of its own, so that an error reaches only the request it belongs to.
func (w *Writer) write(batch []*ingestJob, done func()) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	defer w.prepareNew(ctx) // after the connection is released (deferred before it)
	err := w.unsynced(ctx, func(conn *sql.Conn) error {
		if err := w.writeBatch(ctx, conn, batch); err != nil {
			if len(batch) == 1 {
				fail(batch, err)
			} else {
				for _, j := range batch {
					if err := w.writeBatch(ctx, conn, []*ingestJob{j}); err != nil {
						fail([]*ingestJob{j}, err)
					}
				}
			}
		}
		w.sync.add(func(err error) {
			if err != nil {
				fail(batch, translate("sync", err))
			}
			done()
		})
		w.restartLog(ctx, conn)
		return nil
	})
	if err != nil {
		fail(batch, err)
		done()
	}
}

// unsynced runs fn on the writing connection with synchronous=NORMAL: the transactions fn
// commits are in the write-ahead log, not yet on disk, until the syncer's next fsync.
func (w *Writer) unsynced(ctx context.Context, fn func(conn *sql.Conn) error) error {
	conn, err := w.s.w.Conn(ctx)
	if err != nil {
		return translate("writer connection", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return translate("writer connection", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); err != nil {
			// Never hand back a connection whose commits would not wait for the disk: the
			// pool drops it and opens a new one (with the pragmas of the DSN).
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	defer w.cp.unsynced.Store(true)
	return fn(conn)
}

// fail answers jobs with err: nothing of them is stored (or durable).
func fail(jobs []*ingestJob, err error) {
	for _, j := range jobs {
		j.stored, j.err = false, err
	}
}

// writeBatch writes jobs in one transaction on conn.
func (w *Writer) writeBatch(ctx context.Context, conn *sql.Conn, jobs []*ingestJob) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return translate("begin", err)
	}
	st := w.st.in(ctx, tx)
	if err := w.insertIngestions(ctx, tx, st, jobs); err != nil {
		_ = tx.Rollback()
		return err
	}
	ds, err := fanOut(ctx, st.q, ingestionEvents(jobs))
	if err == nil {
		rows := make([][]any, len(ds))
		for i, d := range ds {
			rows[i] = deliveryRow(d)
		}
		err = translate("insert webhook delivery", w.eachChunk(ctx, tx, insertDeliveriesHead, deliveriesTail, rows, nil))
	}
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return translate("commit", tx.Commit())
}

// restartLog completes a checkpoint on the writing connection once the log is long, so that
// the next transaction starts the log from its beginning (durable.go).
func (w *Writer) restartLog(ctx context.Context, conn *sql.Conn) {
	if w.cp.frames.Load() < restartFrames {
		return
	}
	frames, copied, err := passiveCheckpoint(ctx, conn)
	if err == nil && frames == copied {
		w.cp.frames.Store(0)
	}
}

// The statements of an ingestion. A record whose tenant, kind and public id exist is not
// inserted and returns no row. The single-row ones are prepared once (SQLite would otherwise
// parse them again for every use); the multi-row ones per size (multiStmt).
const (
	recordColumns = `tenant_id, kind, public_id, form_id, created_at,
	pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline, next_deadline, anonymised_at, body, lapsed_at`
	insertRecord = `INSERT INTO records (` + recordColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (tenant_id, kind, public_id) DO NOTHING RETURNING rid`
	insertKey = `INSERT INTO match_keys (key, rid) VALUES (?, ?) ON CONFLICT DO NOTHING`

	insertRecordsHead = `INSERT INTO records (` + recordColumns + `) VALUES `
	recordsTail       = ` ON CONFLICT (tenant_id, kind, public_id) DO NOTHING RETURNING rid, tenant_id, kind, public_id`
	insertKeysHead    = `INSERT INTO match_keys (key, rid) VALUES `
	keysTail          = ` ON CONFLICT DO NOTHING`
	insertAuditHead   = `INSERT INTO audit (` + auditCols + `) VALUES `
	// Ids are new: a conflict is an error, which the one-at-a-time retry reports.
	auditTail = ``
)

// statements are the writing connection's prepared statements.
type statements struct {
	record, key, audit, head *sql.Stmt
	// dropKey drops one of a changed record's match keys (rewrite): prepared once, not parsed
	// per record.
	dropKey *sql.Stmt
	// heads are the chain heads a transaction read or moved (appendAudit), per tenant.
	heads map[string]tenants.ChainHead
	// cache keeps the writing connection's other prepared statements (stmtcache.go); q runs
	// them in the transaction.
	cache *stmtCache
	q     cachedQuerier
}

func prepare(ctx context.Context, db *sql.DB) (statements, error) {
	st := statements{cache: newStmtCache(db)}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{{&st.record, insertRecord}, {&st.key, insertKey}, {&st.audit, insertAudit}, {&st.head, chainHead}, {&st.dropKey, deleteKey}} {
		s, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			return st, fmt.Errorf("prepare: %w", err)
		}
		*p.dst = s
	}
	// The webhooks' statements: every write runs the first two, the dispatcher the last.
	for _, q := range []string{listEndpoints, insertDelivery, updateDelivery} {
		if _, _, err := st.cache.get(ctx, q); err != nil {
			return st, fmt.Errorf("prepare: %w", err)
		}
	}
	return st, nil
}

// in returns the statements bound to tx.
func (st statements) in(ctx context.Context, tx *sql.Tx) statements {
	return statements{record: tx.StmtContext(ctx, st.record), key: tx.StmtContext(ctx, st.key), audit: tx.StmtContext(ctx, st.audit),
		head:    tx.StmtContext(ctx, st.head),
		dropKey: tx.StmtContext(ctx, st.dropKey), heads: map[string]tenants.ChainHead{}, cache: st.cache, q: cachedQuerier{st.cache, tx}}
}

// insertIngestions writes records with their match keys and audit entries, one multi-row
// INSERT per table; job.stored is false for a record whose tenant, kind and public id exist
// (nothing of it is written), also for the second of two jobs in jobs with one id.
func (w *Writer) insertIngestions(ctx context.Context, tx *sql.Tx, st statements, jobs []*ingestJob) error {
	type recordKey struct{ tenant, kind, id string }
	byKey := make(map[recordKey]*ingestJob, len(jobs))
	rows := make([][]any, 0, len(jobs))
	for _, j := range jobs {
		r, d := j.in.Record, j.d
		j.stored = false
		rows = append(rows, []any{r.TenantID, string(r.Kind), r.PublicID, r.FormID, ms(r.CreatedAt), d.ppStatus,
			d.ppDeadline, d.geStatus, d.geDeadline, d.gpStatus, d.gpDeadline, d.nextDeadline, d.anonymisedAt, d.body, d.lapsedAt})
		k := recordKey{r.TenantID, string(r.Kind), r.PublicID}
		if _, ok := byKey[k]; !ok {
			byKey[k] = j // SQLite inserts the rows in order: the first of an id is the one stored
		}
	}
	rids := map[*ingestJob]int64{}
	err := w.eachChunk(ctx, tx, insertRecordsHead, recordsTail, rows, func(rs *sql.Rows) error {
		for rs.Next() {
			var k recordKey
			var rid int64
			if err := rs.Scan(&rid, &k.tenant, &k.kind, &k.id); err != nil {
				return err
			}
			if j := byKey[k]; j != nil {
				j.stored, rids[j] = true, rid
			}
		}
		return rs.Err()
	})
	if err != nil {
		return translate("insert record", err)
	}
	var keys [][]any
	var entries []tenants.AuditEntry
	for _, j := range jobs {
		if !j.stored {
			continue
		}
		for _, k := range j.in.Record.MatchKeys {
			keys = append(keys, []any{key16(k), rids[j]})
		}
		entries = append(entries, j.in.Audit...)
	}
	if err := w.eachChunk(ctx, tx, insertKeysHead, keysTail, keys, nil); err != nil {
		return translate("insert match key", err)
	}
	return w.appendAuditRows(ctx, tx, st, entries)
}

// appendAuditRows links entries into their tenants' chains and inserts them in multi-row
// statements. Entries that bring their own id (which may exist, and then takes no place) go
// one at a time (appendAudit).
func (w *Writer) appendAuditRows(ctx context.Context, tx *sql.Tx, st statements, entries []tenants.AuditEntry) error {
	for _, e := range entries {
		if e.ID != "" {
			return appendAudit(ctx, st, entries)
		}
	}
	rows := make([][]any, 0, len(entries))
	for _, e := range entries {
		head, err := st.chainEnd(ctx, e.TenantID)
		if err != nil {
			return err
		}
		e.ID = tenants.NewAuditID(e.Time)
		st.heads[e.TenantID] = head.Link(&e)
		args, err := auditArgs(e)
		if err != nil {
			return err
		}
		rows = append(rows, args)
	}
	if err := w.eachChunk(ctx, tx, insertAuditHead, auditTail, rows, nil); err != nil {
		return translate("append audit", err)
	}
	return nil
}

// insertIngestion writes one record with its match keys and audit entries with the
// single-row statements (an import); j.stored is false for a record whose tenant, kind and
// public id exist.
func insertIngestion(ctx context.Context, st statements, j *ingestJob) error {
	r, d := j.in.Record, j.d
	var rid int64
	err := st.record.QueryRowContext(ctx, r.TenantID, string(r.Kind), r.PublicID, r.FormID, ms(r.CreatedAt), d.ppStatus,
		d.ppDeadline, d.geStatus, d.geDeadline, d.gpStatus, d.gpDeadline, d.nextDeadline, d.anonymisedAt, d.body, d.lapsedAt).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		j.stored = false
		return nil
	}
	if err != nil {
		return translate("insert record", err)
	}
	j.stored = true
	if err := insertKeys(ctx, st, rid, r.MatchKeys); err != nil {
		return err
	}
	return appendAudit(ctx, st, j.in.Audit)
}

func insertKeys(ctx context.Context, st statements, rid int64, keys []string) error {
	for _, k := range keys {
		if _, err := st.key.ExecContext(ctx, key16(k), rid); err != nil {
			return translate("insert match key", err)
		}
	}
	return nil
}

// inTx runs fn in a transaction on the writing connection, with the prepared statements
// bound to it, and commits it: durable at the commit (synchronous=FULL).
func (w *Writer) inTx(ctx context.Context, fn func(tx *sql.Tx, st statements) error) error {
	tx, err := w.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("begin", err)
	}
	if err := fn(tx, w.st.in(ctx, tx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	err = translate("commit", tx.Commit())
	w.st.cache.prepareWanted(ctx)
	return err
}
