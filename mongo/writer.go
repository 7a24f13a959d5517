package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/batch"
	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// maxBatch bounds how many ingestions one batch writes.
const maxBatch = 256

// writeTimeout bounds one batch; it does not follow any single request's context, so one
// client giving up cannot abort the writes of the others.
const writeTimeout = 30 * time.Second

// Writer makes every change to records. Ingestions are grouped (package batch) and each batch
// is written as one unordered insert per collection, then the outbox events, then the audit
// entries. Erasure, revocation and expiry run in the caller's goroutine: they guard each
// rewrite by the record's revision.
type Writer struct {
	s     *Store
	batch *batch.Batcher[*ingestJob]
	// failAt, set by tests only, fails a batch's step of that name ("events", "audit") once
	// per job, as a database that stops answering would.
	failAt func(step string) error
	// gaveUp are the failed erasures still giving their claims back (giveback.go).
	gaveUp *gaveUp
}

var _ tenants.Writer = (*Writer)(nil)

type ingestJob struct {
	in    tenants.Ingestion
	doc   recordDoc
	token string
	// stored: this call inserted the record; tried: an insert may have reached the database
	// (its answer was lost), so the record, its events and entries are looked up, not assumed.
	stored, tried bool
	err           error
}

func newWriter(s *Store, obs tenants.Observer) *Writer {
	w := &Writer{s: s, gaveUp: newGaveUp()}
	w.batch = batch.New(maxBatch, w.write, batch.Observer(obs))
	return w
}

// Ingest implements tenants.Writer: on success the record, its outbox events and its audit
// entries are all stored. On an error nothing of the call is left that a repeat would
// duplicate: a record this call inserted is removed again when its events or entries could not
// be written (a repeat with the same submission id completes what a repeat finds missing).
func (w *Writer) Ingest(ctx context.Context, in tenants.Ingestion) (bool, error) {
	if _, err := w.s.Records.col(in.Record.Kind); err != nil {
		return false, err
	}
	d, err := toDoc(in.Record)
	if err != nil {
		return false, err
	}
	j := &ingestJob{in: in, doc: d, token: tenants.NewID("")}
	j.doc.Ingest = j.token
	if err := w.batch.Do(ctx, j); err != nil {
		return false, err
	}
	return j.stored, j.err
}

// close writes what is queued and returns.
func (w *Writer) close() {
	w.batch.Close()
	w.gaveUp.stop()
}

// retryFor bounds how long a batch repeats a step whose answer was lost (a connection cut):
// each step is idempotent, so repeating it completes it. Repeats run under a deadline of
// retryFor after the batch began, and the removal of what a failed ingestion stored under
// compensateFor, so that a database gone for good is answered 503 within seconds (an
// unreachable server is not waited for: it took selectionTimeout to say so, and the client
// repeats after the 503).
const (
	retryFor      = 4 * time.Second
	compensateFor = 3 * time.Second
)

// bounded is the context of a step's try: the batch's for the first, ending at until for
// repeats.
func bounded(ctx context.Context, try int, until time.Time) (context.Context, context.CancelFunc) {
	if try == 0 {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, until)
}

// keep is the error of a repeat: when the repeat ran out of time, the error of the try
// before it (the lost answer, unavailable) says more than the deadline.
func keep(actx context.Context, err, before error) error {
	if err != nil && before != nil && actx.Err() != nil {
		return before
	}
	return err
}

// transient reports an error after which a step may have been applied or not, and repeating
// it may succeed: a lost connection, not a server that could not be found.
func transient(err error) bool {
	var sse topology.ServerSelectionError
	return err != nil && errors.Is(err, tenants.ErrUnavailable) && !errors.As(err, &sse)
}

// write stores a batch: the records, one unordered insert per collection (a record whose id
// exists is a repeat: not stored, no error), then the outbox events, then the audit entries of
// the records, repeats included (ids derived from the record: a repeat fills what a stop left
// missing). A step whose answer was lost is repeated for up to retryFor; an ingestion that
// still fails has its record removed again (compensate). An error reaches only the
// ingestions it concerns.
func (w *Writer) write(batch []*ingestJob) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	until := time.Now().Add(retryFor)
	byKind := map[tenants.Kind][]*ingestJob{}
	for _, j := range batch {
		byKind[j.in.Record.Kind] = append(byKind[j.in.Record.Kind], j)
	}
	for kind, jobs := range byKind {
		w.insertRecords(ctx, kind, jobs, until)
	}
	w.insertEvents(ctx, batch, until)
	w.appendAudit(ctx, batch, until)
	w.compensate(ctx, batch)
}

// pause waits before a step is repeated; false when the time for repeats is over.
func pause(ctx context.Context, try int, until time.Time) bool {
	d := min(time.Duration(1<<min(try, 5))*20*time.Millisecond, 500*time.Millisecond)
	if time.Now().Add(d).After(until) {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func (w *Writer) insertRecords(ctx context.Context, kind tenants.Kind, jobs []*ingestJob, until time.Time) {
	c, _ := w.s.Records.col(kind) // checked by Ingest
	for try := 0; len(jobs) > 0; try++ {
		docs := make([]any, len(jobs))
		for i, j := range jobs {
			docs[i] = j.doc
			j.tried = j.tried || try > 0
		}
		actx, cancel := bounded(ctx, try, until)
		_, err := c.InsertMany(actx, docs, options.InsertMany().SetOrdered(false))
		byIndex, ok := writeErrors(err)
		var again []*ingestJob
		for i, j := range jobs {
			before := j.err
			j.err = nil
			switch code, failed := byIndex[i]; {
			case err == nil, ok && !failed:
				j.stored = true
			case !ok:
				j.err = keep(actx, translate("insert records", err), before)
				if transient(j.err) && actx.Err() == nil {
					j.tried = true
					again = append(again, j)
				}
			case code == codeDuplicateKey && j.tried:
				// Our own insert whose answer was lost, or another call's: the token tells.
				j.stored, j.err = w.ownRecord(actx, c, j)
				j.err = keep(actx, j.err, before)
			case code != codeDuplicateKey:
				// Only the code: the server's message may quote the record's values.
				j.err = writeError("insert record", code)
			}
		}
		cancel()
		if len(again) == 0 || !pause(ctx, try, until) {
			return
		}
		jobs = again
	}
}

// ownRecord reports whether the stored record with j's id was inserted by j.
func (w *Writer) ownRecord(ctx context.Context, c *mongo.Collection, j *ingestJob) (bool, error) {
	var d struct {
		Ingest string `bson:"ingest"`
	}
	err := c.FindOne(ctx, bson.D{{Key: "tenantId", Value: j.doc.TenantID}, {Key: "_id", Value: j.doc.ID}},
		options.FindOne().SetProjection(bson.D{{Key: "ingest", Value: 1}})).Decode(&d)
	if err != nil {
		return false, translate("read record", err)
	}
	return d.Ingest == j.token, nil
}

// ingestionEntryID derives an ingestion's audit entry id from its record: a repeat of the
// ingestion appends its entries again under the same ids, which writes nothing when they
// exist and fills the gap when a crash came between the record and its entries.
func ingestionEntryID(rec tenants.Record, action string) string { return rec.ID + "#" + action }

// insertEvents writes the events of a batch's ingestions, repeats included (their ids follow
// from the record): a stop between a record and its events leaves a gap that the repeat
// of the ingestion fills. An error reaches the ingestions of the batch that have events.
func (w *Writer) insertEvents(ctx context.Context, batch []*ingestJob, until time.Time) {
	var events []tenants.OutboxEvent
	var owners []*ingestJob
	for _, j := range batch {
		if j.err == nil && len(j.in.Events) > 0 {
			events = append(events, j.in.Events...)
			owners = append(owners, j)
		}
	}
	if len(events) == 0 {
		return
	}
	var before error
	for try := 0; ; try++ {
		actx, cancel := bounded(ctx, try, until)
		err := w.fail("events")
		if err == nil {
			err = keep(actx, w.s.Outbox.insertEvents(actx, events), before)
		}
		expired := actx.Err() != nil
		cancel()
		if err == nil || !transient(err) || expired || !pause(ctx, try, until) {
			for _, j := range owners {
				j.err = err
			}
			return
		}
		before = err
	}
}

func (w *Writer) appendAudit(ctx context.Context, batch []*ingestJob, until time.Time) {
	var entries []tenants.AuditEntry
	var owners []*ingestJob
	// The entries of a new record cannot exist yet; those of a repeat (or of an insert whose
	// answer was lost) are looked up first, so that only the missing ones take places.
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
			check = append(check, !j.stored || j.tried)
		}
	}
	for try := 0; len(entries) > 0; try++ {
		actx, cancel := bounded(ctx, try, until)
		errs := make([]error, len(entries))
		if err := w.fail("audit"); err != nil {
			for i := range errs {
				errs[i] = err
			}
		} else {
			_, errs = w.s.Audit.appendChained(actx, entries, check)
		}
		expired := actx.Err() != nil
		cancel()
		var retry []int
		before := make(map[*ingestJob]error, len(owners))
		for _, j := range owners {
			before[j], j.err = j.err, nil
		}
		for i, err := range errs {
			if err != nil {
				owners[i].err = keep(actx, err, before[owners[i]])
			}
			if transient(err) {
				retry = append(retry, i)
			}
		}
		if len(retry) == 0 || expired || !pause(ctx, try, until) {
			return
		}
		// Again, looked up first: the lost answer may have followed the write.
		var e2 []tenants.AuditEntry
		var o2 []*ingestJob
		for _, i := range retry {
			e2, o2 = append(e2, entries[i]), append(o2, owners[i])
		}
		entries, owners, check = e2, o2, nil
	}
}

// fail is the test hook of step.
func (w *Writer) fail(step string) error {
	if w.failAt == nil {
		return nil
	}
	return w.failAt(step)
}

// compensate removes what the batch's failed ingestions stored: a record this call inserted
// and its events, so that the client's repeat (a 5xx is repeated, and without a submission id
// a repeat is a new record) does not store the person twice. Entries whose append failed may
// still be completed by the next append (the chain's link holds them): the audit log then
// names a record that is not kept, which is what a failed ingestion may leave. Should the
// removal fail too (the database gone), the record stays with what was written of it.
func (w *Writer) compensate(ctx context.Context, batch []*ingestJob) {
	ctx, cancel := context.WithTimeout(ctx, compensateFor)
	defer cancel()
	for _, j := range batch {
		if j.err == nil || !(j.stored || j.tried) {
			continue
		}
		c, _ := w.s.Records.col(j.in.Record.Kind)
		until := time.Now().Add(compensateFor)
		for try := 0; ; try++ {
			err := w.removeOwn(ctx, c, j)
			if err == nil {
				j.stored = false
				break
			}
			if !transient(err) || !pause(ctx, try, until) {
				break
			}
		}
	}
}

// removeOwn deletes j's record if j inserted it, then its events and their deliveries.
func (w *Writer) removeOwn(ctx context.Context, c *mongo.Collection, j *ingestJob) error {
	res, err := c.DeleteOne(ctx, bson.D{{Key: "tenantId", Value: j.doc.TenantID}, {Key: "_id", Value: j.doc.ID}, {Key: "ingest", Value: j.token}})
	if err != nil || len(j.in.Events) == 0 {
		return translate("remove record", err)
	}
	if res.DeletedCount == 0 {
		// Not inserted by j: when another call's record has the id, the events are its own.
		err := c.FindOne(ctx, ofTenant(j.doc.TenantID, j.doc.ID), options.FindOne().SetProjection(bson.D{asc("_id")})).Err()
		if err == nil || !errors.Is(err, mongo.ErrNoDocuments) {
			return translate("read record", err)
		}
	}
	ids := make([]string, len(j.in.Events))
	for i, e := range j.in.Events {
		ids[i] = e.ID
	}
	if _, err := w.s.Outbox.events.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
		return translate("remove outbox events", err)
	}
	_, err = w.s.Outbox.deliveries.DeleteMany(ctx, bson.D{{Key: "eventId", Value: bson.D{{Key: "$in", Value: ids}}}})
	return translate("remove deliveries", err)
}
