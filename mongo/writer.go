package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/batch"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// maxBatch bounds how many ingestions one batch writes.
const maxBatch = 256

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// Writer makes every change to records. Ingestions are grouped (package batch) and each batch
// is written as one unordered insert per collection, then one insert of the audit entries.
// Erasure, revocation and expiry run in the caller's goroutine: they guard each rewrite by the
// record's revision.
type Writer struct {
	s     *Store
	batch *batch.Batcher[*ingestJob]
}

var _ tenants.Writer = (*Writer)(nil)

type ingestJob struct {
	in     tenants.Ingestion
	doc    recordDoc
	stored bool
	err    error
}

func newWriter(s *Store, obs tenants.Observer) *Writer {
	w := &Writer{s: s}
	w.batch = batch.New(maxBatch, w.write, batch.Observer(obs))
	return w
}

// Ingest implements tenants.Writer. The record goes first, its audit entries after it: a
// crash in between leaves a record without its entries, and a repeat of the ingestion
// appends them (see ingestionEntryID).
func (w *Writer) Ingest(ctx context.Context, in tenants.Ingestion) (bool, error) {
	if _, err := w.s.Records.col(in.Record.Kind); err != nil {
		return false, err
	}
	d, err := toDoc(in.Record)
	if err != nil {
		return false, err
	}
	j := &ingestJob{in: in, doc: d}
	if err := w.batch.Do(ctx, j); err != nil {
		return false, err
	}
	return j.stored, j.err
}

// close writes what is queued and returns.
func (w *Writer) close() { w.batch.Close() }

// write stores a batch: the records, one unordered insert per collection (a record whose id
// exists is a repeat: not stored, no error), then the audit entries of the records, repeats
// included (see ingestionEntryID). An error reaches only the ingestions it concerns.
func (w *Writer) write(batch []*ingestJob) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	byKind := map[tenants.Kind][]*ingestJob{}
	for _, j := range batch {
		byKind[j.in.Record.Kind] = append(byKind[j.in.Record.Kind], j)
	}
	for kind, jobs := range byKind {
		w.insertRecords(ctx, kind, jobs)
	}
	w.appendAudit(ctx, batch)
	w.insertEvents(ctx, batch)
}

func (w *Writer) insertRecords(ctx context.Context, kind tenants.Kind, jobs []*ingestJob) {
	c, _ := w.s.Records.col(kind) // checked by Ingest
	docs := make([]any, len(jobs))
	for i, j := range jobs {
		docs[i] = j.doc
	}
	_, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	byIndex, ok := writeErrors(err)
	for i, j := range jobs {
		switch code, failed := byIndex[i]; {
		case err == nil:
			j.stored = true
		case !ok:
			j.err = translate("insert records", err)
		case !failed:
			j.stored = true
		case code != codeDuplicateKey:
			// Only the code: the server's message may quote the record's values.
			j.err = writeError("insert record", code)
		}
	}
}

// ingestionEntryID derives an ingestion's audit entry id from its record: a repeat of the
// ingestion appends its entries again under the same ids, which writes nothing when they
// exist and fills the gap when a crash came between the record and its entries.
func ingestionEntryID(rec tenants.Record, action string) string { return rec.ID + "#" + action }

func (w *Writer) appendAudit(ctx context.Context, batch []*ingestJob) {
	var entries []tenants.AuditEntry
	var owners []*ingestJob
	// The entries of a new record cannot exist yet; those of a repeat are looked up first,
	// so that only the missing ones take places in the chain.
	var check []bool
	for _, j := range batch {
		if j.err != nil {
			continue
		}
		for _, e := range j.in.Audit {
			if e.ID == "" {
				e.ID = ingestionEntryID(j.in.Record, e.Action)
			}
			entries = append(entries, e)
			owners = append(owners, j)
			check = append(check, !j.stored)
		}
	}
	_, errs := w.s.Audit.appendChained(ctx, entries, check)
	for i, err := range errs {
		if err != nil {
			owners[i].stored, owners[i].err = false, err
		}
	}
}
