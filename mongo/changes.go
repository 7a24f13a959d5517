package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// casAttempts bounds how often a change to one record is tried again after another writer
// changed it first.
const casAttempts = 5

// change is a record as read and as a Change makes it.
type change struct {
	doc     recordDoc
	before  tenants.Record
	after   tenants.Record
	changed bool
}

// prepare applies ch to a copy of d.
func prepare(d recordDoc, ch tenants.Change) (change, error) {
	c := change{doc: d}
	var err error
	if c.before, err = d.record(); err != nil {
		return c, err
	}
	cp, err := d.copied()
	if err != nil {
		return c, err
	}
	if c.after, err = cp.record(); err != nil {
		return c, err
	}
	c.changed, err = ch.Apply(&c.after)
	return c, err
}

func afters(cs []change) []tenants.Record {
	out := make([]tenants.Record, len(cs))
	for i, c := range cs {
		out[i] = c.after
	}
	return out
}

// atRev is the filter of the record d at the revision d was read.
func atRev(d recordDoc) bson.D {
	return bson.D{{Key: "tenantId", Value: d.TenantID}, {Key: "_id", Value: d.ID}, {Key: "rev", Value: d.Rev}}
}

// cas applies update to the record d if it is still at the revision d was read, and reports
// whether it was. On MongoDB the condition and the write are one atomic step, so of writers
// racing from one revision one wins; FerretDB checks the condition before the write, not with
// it, so there both may win. Erasure claims, which must never be won twice, are therefore
// inserts (see claims), atomic on both.
func (w *Writer) cas(ctx context.Context, d recordDoc, update bson.D) (bool, error) {
	c, err := w.s.Records.col(d.Kind)
	if err != nil {
		return false, err
	}
	res, err := c.UpdateOne(ctx, atRev(d), update)
	if err != nil {
		return false, translate("update record", err)
	}
	return res.MatchedCount == 1, nil
}

// setConsents is the update storing rec's consents and next deadline as a new revision.
func setConsents(rec tenants.Record) bson.D {
	return bson.D{{Key: "$set", Value: bson.D{{Key: "consents", Value: toConsentsDoc(rec.Consents)},
		{Key: "nextDeadline", Value: rec.Consents.NextDeadline()}, {Key: "lapsedAt", Value: rec.Consents.LapsedAt(rec.CreatedAt)}}}, {Key: "$inc", Value: bson.D{{Key: "rev", Value: 1}}}}
}

// changes finds the records ch applies to and applies it to copies of them; an Apply error
// returns before anything is written.
func (w *Writer) changes(ctx context.Context, ch tenants.Change) ([]change, error) {
	docs, err := w.s.Records.changeDocs(ctx, ch)
	if err != nil {
		return nil, err
	}
	var todo []change
	for _, d := range docs {
		c, err := prepare(d, ch)
		if err != nil {
			return nil, err
		}
		if c.changed {
			todo = append(todo, c)
		}
	}
	return todo, nil
}

// Revoke implements tenants.Writer: ch is applied to every record first (an Apply that fails
// writes nothing), then each record's consents are rewritten conditionally on the revision
// read (a record changed meanwhile is read again and the change applied to it), together with
// the id of the audit entry the rewrite awaits, then the entry is appended and the marks
// cleared. A revocation changes consents only: nothing else is written. A stop between the
// rewrites and the entry leaves the marks; whoever reaches a marked record next — the caller's
// repeat, answered the error — finds its entry missing and appends it, so that a revocation is
// never left without its entry and a repeat never writes one twice. A record found changed as
// this call would change it, under a mark whose entry is missing, is owed in the same way,
// whether it was so when read or became so before this call's rewrite (the rewrite of a call
// answered an error can land after its repeat read the record: a cut connection's command
// still running on the server).
func (w *Writer) Revoke(ctx context.Context, ch tenants.Change) ([]tenants.Record, error) {
	docs, err := w.s.Records.changeDocs(ctx, ch)
	if err != nil {
		return nil, err
	}
	todo, owed, err := w.revocations(ctx, docs, ch)
	if err != nil {
		return nil, err
	}
	// The events go first: a stop after them may leave an event of a change not made (the
	// caller was not answered; receivers read the state through the API), never a change
	// made without its event.
	if ch.Events != nil && len(todo) > 0 {
		if err := w.s.Outbox.insertEvents(ctx, ch.Events(afters(todo))); err != nil {
			return nil, err
		}
	}
	entryID := tenants.NewAuditID(time.Now())
	changed := owed
	for _, c := range todo {
		r, err := w.revoke(ctx, ch, c, entryID)
		if err != nil {
			// What was rewritten is audited before the error is answered, under an id of its
			// own: the record that failed may have been rewritten too (its answer lost), marked
			// with entryID, which then stays missing, so that the repeat audits it. Should this
			// append fail too, the marks make the repeat audit all of them.
			if len(changed) > 0 {
				err = errors.Join(err, w.auditRevoked(ctx, ch, tenants.NewAuditID(time.Now()), changed))
			}
			return nil, err
		}
		if r.mark != "" {
			changed = append(changed, r)
		}
	}
	if len(changed) > 0 {
		if err := w.auditRevoked(ctx, ch, entryID, changed); err != nil {
			return nil, err
		}
	}
	out := make([]tenants.Record, len(changed))
	for i, r := range changed {
		out[i] = r.rec
	}
	return out, nil
}

// revokedRec is a record a revocation audits and the mark that its entry settles: the
// call's own entry id when the call rewrote it, another call's when the record was owed.
type revokedRec struct {
	rec  tenants.Record
	mark string
}

// revocations applies ch to copies of docs and returns those it changes, and, of the others,
// the records an earlier revocation marked whose entry is missing (owed an entry).
func (w *Writer) revocations(ctx context.Context, docs []recordDoc, ch tenants.Change) (todo []change, owed []revokedRec, err error) {
	for _, d := range docs {
		c, err := prepare(d, ch)
		if err != nil {
			return nil, nil, err
		}
		if c.changed {
			todo = append(todo, c)
			continue
		}
		r, err := w.owed(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		if r.mark != "" {
			owed = append(owed, r)
		}
	}
	return todo, owed, nil
}

// owed returns c's record with its mark when the mark's entry is missing, else nothing.
func (w *Writer) owed(ctx context.Context, c change) (revokedRec, error) {
	if c.doc.AuditPending == "" {
		return revokedRec{}, nil
	}
	ok, err := w.s.Audit.settled(ctx, c.doc.TenantID, c.doc.AuditPending)
	if err != nil || ok {
		return revokedRec{}, err
	}
	return revokedRec{rec: c.before, mark: c.doc.AuditPending}, nil
}

// auditRevoked appends the entries of the revoked records, the first under entryID (the id
// their marks await, when this call rewrote them), then clears the marks it settled: each
// record's mark is cleared only while it is the one this entry settles, never another call's
// set since (a mark left by a failure here finds its entry stored and is cleared by the next
// revocation reaching the record).
func (w *Writer) auditRevoked(ctx context.Context, ch tenants.Change, entryID string, revs []revokedRec) error {
	recs := make([]tenants.Record, len(revs))
	for i, r := range revs {
		recs[i] = r.rec
	}
	entries := ch.Audit(recs)
	if len(entries) == 0 {
		return nil
	}
	entries[0].ID = entryID
	if err := w.appendRepeating(ctx, entries); err != nil {
		return err
	}
	for _, r := range revs {
		if c, err := w.s.Records.col(r.rec.Kind); err == nil {
			_, _ = c.UpdateOne(ctx, bson.D{{Key: "tenantId", Value: ch.TenantID}, {Key: "_id", Value: r.rec.ID}, {Key: "auditPending", Value: r.mark}},
				bson.D{{Key: "$unset", Value: bson.D{{Key: "auditPending", Value: ""}}}})
		}
	}
	return nil
}

// appendRepeating appends entries of a change already written, repeating the append while its
// answer was lost (retryFor): each entry gets its id once, so a repeat finds what the lost
// answer stored and appends nothing twice, and a connection cut does not lose the entries.
func (w *Writer) appendRepeating(ctx context.Context, entries []tenants.AuditEntry) error {
	for i := range entries {
		if entries[i].ID == "" {
			entries[i].ID = tenants.NewAuditID(entries[i].Time)
		}
	}
	until := time.Now().Add(retryFor)
	for try := 0; ; try++ {
		err := w.s.Audit.Append(ctx, entries...)
		if err == nil || !transient(err) || !pause(ctx, try, until) {
			return err
		}
	}
}

// revoke stores c's consents, marked as awaiting the entry entryID, and returns the record
// with that mark; or, when the record read again needs no change, nothing (no mark) unless
// it is owed an entry (see owed).
func (w *Writer) revoke(ctx context.Context, ch tenants.Change, c change, entryID string) (revokedRec, error) {
	for range casAttempts {
		update := setConsents(c.after)
		update[0].Value = append(update[0].Value.(bson.D), bson.E{Key: "auditPending", Value: entryID})
		ok, err := w.cas(ctx, c.doc, update)
		if transient(err) {
			// The answer was lost: the rewrite may have been applied. Read again: at the next
			// revision, marked by this call, it is this call's.
			d, rerr := w.s.Records.getDoc(ctx, c.doc.TenantID, c.doc.Kind, c.doc.ID)
			if rerr == nil && d.Rev == c.doc.Rev+1 && d.AuditPending == entryID {
				return revokedRec{rec: c.after, mark: entryID}, nil
			}
			return revokedRec{}, err
		}
		if err != nil {
			return revokedRec{}, err
		}
		if ok {
			return revokedRec{rec: c.after, mark: entryID}, nil
		}
		d, err := w.s.Records.getDoc(ctx, c.doc.TenantID, c.doc.Kind, c.doc.ID)
		if err != nil {
			return revokedRec{}, err
		}
		if !d.reached(ch) {
			return revokedRec{}, nil
		}
		if c, err = prepare(d, ch); err != nil {
			return revokedRec{}, err
		}
		if !c.changed {
			// Changed as this call would change it, by another call: owed when that call's
			// entry is missing (its caller was answered an error and this may be the repeat).
			return w.owed(ctx, c)
		}
	}
	return revokedRec{}, errBusy("revoke")
}

// Expire implements tenants.Writer. Per collection it reads the due records through the
// next-deadline index, run.Limit at a time, across tenants. For each, the audit entries go
// first (their ids are deterministic, so a repeat appends nothing twice), then the consents
// and the recomputed next deadline, conditional on the revision read: a stop in between
// leaves the record due, and the next run completes it.
func (w *Writer) Expire(ctx context.Context, run tenants.ExpiryRun) (int, error) {
	limit := max(run.Limit, 1)
	total := 0
	for _, kind := range tenants.Kinds() {
		c, err := w.s.Records.col(kind)
		if err != nil {
			return total, err
		}
		for {
			due, err := findAll[recordDoc](ctx, c, "due records", bson.D{{Key: "nextDeadline", Value: bson.D{{Key: "$lte", Value: run.Now}}}},
				options.Find().SetSort(bson.D{asc("nextDeadline")}).SetLimit(int64(limit)))
			if err != nil {
				return total, err
			}
			lost := false
			for _, d := range due {
				n, ok, err := w.expire(ctx, d, run)
				total += n
				if err != nil {
					return total, err
				}
				lost = lost || !ok
			}
			// A record changed meanwhile is still due: read again.
			if len(due) < limit && !lost {
				break
			}
		}
	}
	return total, nil
}

// expire records the expiry of d's due consents; ok is false when d changed meanwhile. n
// counts the expiries whose audit entries this call added: of instances running the job at
// once, and of a run repeating one that stopped, each expiry is counted by one only.
func (w *Writer) expire(ctx context.Context, d recordDoc, run tenants.ExpiryRun) (n int, ok bool, err error) {
	cp, err := d.copied()
	if err != nil {
		return 0, false, err
	}
	rec, err := cp.record()
	if err != nil {
		return 0, false, err
	}
	names := rec.Consents.ExpireDue(run.Now)
	added := 0
	if len(names) > 0 {
		if added, err = w.s.Audit.appendNew(ctx, run.Audit(rec, names)...); err != nil {
			return added, false, err
		}
		if run.Events != nil {
			// Deterministic ids, as the audit entries': a repeat fills a gap, writes nothing twice.
			if err := w.s.Outbox.insertEvents(ctx, run.Events(rec, names)); err != nil {
				return added, false, err
			}
		}
	}
	// Written even when nothing expired, so that the next deadline is recomputed. The entries
	// added count even when the record changed meanwhile: read again, it adds none.
	ok, err = w.cas(ctx, d, setConsents(rec))
	return added, ok, err
}
