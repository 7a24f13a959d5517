package mongo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// maxBatch bounds how many ingestions one batch writes.
const maxBatch = 256

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// ErrWriterClosed is returned for work handed to a writer that has stopped.
var ErrWriterClosed = errors.New("writer closed")

// BatchWriter is the single writer of records and the per-person lookup. Concurrent
// ingestions are grouped into one bulk write per collection (the store serialises writers,
// so a few large writes beat many small ones); a batch takes whatever queued while the
// previous one was being written, so a lone request waits for nobody.
type BatchWriter struct {
	s       *Store
	work    chan job
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

var _ tenants.Writer = (*BatchWriter)(nil)

type job struct {
	ingest *tenants.Ingestion
	forget *forgetJob
	run    func(ctx context.Context) error
	done   chan error
}

type forgetJob struct {
	tenantID, hash string
	refs           []string
}

// NewBatchWriter starts the writer; Close stops it.
func NewBatchWriter(s *Store) *BatchWriter {
	w := &BatchWriter{s: s, work: make(chan job, 4*maxBatch), stop: make(chan struct{}), stopped: make(chan struct{})}
	go w.loop()
	return w
}

// Ingest implements tenants.Writer.
func (w *BatchWriter) Ingest(ctx context.Context, in tenants.Ingestion) error {
	return w.submit(ctx, job{ingest: &in, done: make(chan error, 1)})
}

// Forget implements tenants.Writer. It runs on the writer goroutine, so on the embedded store
// (one process, one writer) no reference can be added between the check and the delete.
func (w *BatchWriter) Forget(ctx context.Context, tenantID, hash string, refs []string) error {
	return w.submit(ctx, job{forget: &forgetJob{tenantID, hash, refs}, done: make(chan error, 1)})
}

// Exclusive runs fn on the writer goroutine, with no ingestion of this process writing
// meanwhile (the WAL checkpoint after an erasure needs a quiet moment to truncate the log).
func (w *BatchWriter) Exclusive(ctx context.Context, fn func(ctx context.Context) error) error {
	return w.submit(ctx, job{run: fn, done: make(chan error, 1)})
}

func (w *BatchWriter) submit(ctx context.Context, j job) error {
	select {
	case <-w.stop:
		return ErrWriterClosed
	default:
	}
	select {
	case w.work <- j:
	case <-w.stop:
		return ErrWriterClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-j.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting work, finishes what is queued and returns.
func (w *BatchWriter) Close() {
	w.once.Do(func() { close(w.stop) })
	<-w.stopped
}

func (w *BatchWriter) loop() {
	defer close(w.stopped)
	for {
		var first job
		select {
		case first = <-w.work:
		case <-w.stop:
			w.drain()
			return
		}
		w.run(w.collect(first))
	}
}

// collect takes first and whatever else is queued, up to maxBatch ingestions.
func (w *BatchWriter) collect(first job) []job {
	batch := []job{first}
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

func (w *BatchWriter) drain() {
	for {
		select {
		case j := <-w.work:
			w.run([]job{j})
		default:
			return
		}
	}
}

func (w *BatchWriter) run(batch []job) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	var ingests []job
	for _, j := range batch {
		if j.run != nil {
			j.done <- j.run(ctx)
			continue
		}
		if j.forget != nil {
			j.done <- w.s.People.Forget(ctx, j.forget.tenantID, j.forget.hash, j.forget.refs, w.s.embedded == nil)
			continue
		}
		ingests = append(ingests, j)
	}
	if len(ingests) > 0 {
		w.ingest(ctx, ingests)
	}
}

func (w *BatchWriter) ingest(ctx context.Context, jobs []job) {
	ins := make([]tenants.Ingestion, len(jobs))
	for i, j := range jobs {
		ins[i] = *j.ingest
	}
	for i, err := range w.s.IngestBatch(ctx, ins) {
		jobs[i].done <- err
	}
}

// IngestBatch writes many ingestions in one bulk write per collection and returns one error
// per ingestion (ErrConflict for an existing record). Lookups and deadlines go first, then
// the records, then the audit entries of the records that were new: a crash in between
// leaves only references to missing records, which readers skip. Only the writer and bulk
// loaders call it; the embedded store relies on one writer per process.
func (s *Store) IngestBatch(ctx context.Context, ins []tenants.Ingestion) []error {
	errs := make([]error, len(ins))
	var refs []tenants.PersonRef
	var exps []tenants.Expiry
	for _, in := range ins {
		refs = append(refs, in.People...)
		exps = append(exps, in.Expiries...)
	}
	if err := s.People.AddRefs(ctx, refs); err != nil {
		fill(errs, err)
		return errs
	}
	if err := s.Expiries.Add(ctx, exps); err != nil {
		fill(errs, err)
		return errs
	}
	byKind := map[tenants.Kind][]int{}
	for i, in := range ins {
		byKind[in.Record.Kind] = append(byKind[in.Record.Kind], i)
	}
	for kind, idx := range byKind {
		recs := make([]tenants.Record, len(idx))
		for n, i := range idx {
			recs[n] = ins[i].Record
		}
		for n, err := range s.Records.InsertMany(ctx, kind, recs) {
			errs[idx[n]] = err
		}
	}
	var audit []tenants.AuditEntry
	counts := map[string]map[tenants.Kind]int{}
	for i, in := range ins {
		if errs[i] == nil {
			audit = append(audit, in.Audit...)
			if counts[in.Record.TenantID] == nil {
				counts[in.Record.TenantID] = map[tenants.Kind]int{}
			}
			counts[in.Record.TenantID][in.Record.Kind]++
		}
	}
	// The counters feed the dashboard only: the records and their audit entries are stored
	// whatever happens here, so a failure (or a crash before this line) undercounts one batch
	// rather than answering stored requests with an error.
	_ = s.Records.addCounts(ctx, counts)
	if err := s.Audit.Append(ctx, audit...); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	return errs
}
