package mongo

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Audit is the append-only audit log: one document per entry, _id the entry's id, read
// newest first through an index per filter (tenant, tenant+action, tenant+actor, and time
// alone for the platform admin).
type Audit struct {
	c      *mongo.Collection
	seq    *sequence
	chains *chains
}

var _ tenants.AuditRepo = (*Audit)(nil)

// sequence numbers appends: the clock in nanoseconds, moved past the last number handed out,
// so that numbers increase within a process and follow the clock across processes.
type sequence struct {
	mu   sync.Mutex
	last int64
}

// take reserves n consecutive numbers and returns the first.
func (s *sequence) take(n int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := max(time.Now().UnixNano(), s.last+1)
	s.last = first + int64(n) - 1
	return first
}

// Append stores entries at the ends of their tenants' chains (auditchain.go); one whose id
// exists is not stored again, so a repeated job appends nothing twice. An entry without an id
// gets a fresh one.
func (r *Audit) Append(ctx context.Context, entries ...tenants.AuditEntry) error {
	_, err := r.appendNew(ctx, entries...)
	return err
}

// appendNew is Append that also returns how many of the entries it added: those whose id
// existed, stored by a repeat or by another instance, are not counted.
func (r *Audit) appendNew(ctx context.Context, entries ...tenants.AuditEntry) (int, error) {
	added, errs := r.appendChained(ctx, entries, nil)
	return added, errors.Join(errs...)
}

// appendChained appends entries, one chain append per tenant, the tenants at once, and
// returns how many it added and each entry's error. An entry with an id is looked up first
// when check[i] (or check is nil).
func (r *Audit) appendChained(ctx context.Context, entries []tenants.AuditEntry, check []bool) (int, []error) {
	errs := make([]error, len(entries))
	var added atomic.Int64
	// Numbered here, in the order given: entries of one time list in order of append, across
	// tenants too.
	first := r.seq.take(len(entries))
	byTenant := map[string][]int{}
	for i, e := range entries {
		byTenant[e.TenantID] = append(byTenant[e.TenantID], i)
	}
	var wg sync.WaitGroup
	for tenantID, idx := range byTenant {
		wg.Go(func() {
			es := make([]auditDoc, len(idx))
			ck := make([]bool, len(idx))
			for j, i := range idx {
				es[j], ck[j] = toAuditDoc(entries[i], first+int64(i)), check == nil || check[i]
			}
			n, err := r.chains.append(ctx, tenantID, es, ck)
			added.Add(int64(n))
			for _, i := range idx {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return int(added.Load()), errs
}

// docs numbers entries in order and gives each without an id a fresh one.
func (r *Audit) docs(entries []tenants.AuditEntry) []any {
	seq := r.seq.take(len(entries))
	docs := make([]any, len(entries))
	for i, e := range entries {
		if e.ID == "" {
			e.ID = tenants.NewAuditID(e.Time)
		}
		docs[i] = toAuditDoc(e, seq+int64(i))
	}
	return docs
}

// exists reports whether the tenant's entry with id is stored.
func (r *Audit) exists(ctx context.Context, tenantID, id string) (bool, error) {
	err := r.c.FindOne(ctx, ofTenant(tenantID, id), options.FindOne().SetProjection(bson.D{asc("_id")})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, translate("find audit entry", err)
}

// settled reports whether the tenant's entry with id is stored or will be: an entry that an
// append linked but did not store yet (a cut, a crash) is held by the chain's latest link, which
// is completed first when the entry is not found. (Links before the latest are complete: an
// append completes the latest before it links after it.)
func (r *Audit) settled(ctx context.Context, tenantID, id string) (bool, error) {
	if ok, err := r.exists(ctx, tenantID, id); ok || err != nil {
		return ok, err
	}
	unlock := r.chains.lock(tenantID)
	_, _, err := r.chains.complete(ctx, tenantID)
	unlock()
	if err != nil {
		return false, err
	}
	return r.exists(ctx, tenantID, id)
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

// each reads the entries matching f newest first; a nil tenantID spans tenants.
func (r *Audit) each(ctx context.Context, tenantID *string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error {
	filter := auditFilter(tenantID, f)
	sort := bson.D{desc("time"), desc("seq")}
	if c := f.Cursor; c != nil {
		seq, err := r.cursorSeq(ctx, c)
		if err != nil {
			return err
		}
		bound, ties := cursorRange("time", "seq", c, seq)
		if i := slices.IndexFunc(filter, func(e bson.E) bool { return e.Key == "time" }); i >= 0 {
			filter[i].Value = append(filter[i].Value.(bson.D), bound)
		} else {
			filter = append(filter, bson.E{Key: "time", Value: bson.D{bound}})
		}
		filter = append(filter, ties)
		if c.Newer {
			sort = bson.D{asc("time"), asc("seq")}
		}
	}
	opts := options.Find().SetSort(sort)
	if f.Limit > 0 {
		opts.SetLimit(f.Limit)
	}
	if f.Cursor == nil || !f.Cursor.Newer {
		return eachDoc(ctx, r.c, "list audit", filter, opts, func(d auditDoc) error { return fn(d.entry()) })
	}
	// A page of newer entries is read closest first, then listed newest first.
	var got []tenants.AuditEntry
	if err := eachDoc(ctx, r.c, "list audit", filter, opts, func(d auditDoc) error {
		got = append(got, d.entry())
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

// cursorSeq is the sequence number of the entry a cursor names; one that is gone leaves its
// time as the position.
func (r *Audit) cursorSeq(ctx context.Context, c *tenants.Cursor) (int64, error) {
	var d struct {
		Seq int64 `bson:"seq"`
	}
	err := r.c.FindOne(ctx, bson.D{{Key: "_id", Value: c.ID}}, options.FindOne().SetProjection(bson.D{{Key: "seq", Value: 1}})).Decode(&d)
	switch {
	case err == nil:
		return d.Seq, nil
	case errors.Is(err, mongo.ErrNoDocuments) && c.Newer:
		return math.MaxInt64, nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return 0, nil
	}
	return 0, translate("list audit", err)
}

// auditFilter is the filter of f, the tenant first.
func auditFilter(tenantID *string, f tenants.AuditFilter) bson.D {
	filter := bson.D{}
	if tenantID != nil {
		filter = append(filter, bson.E{Key: "tenantId", Value: *tenantID})
	}
	if f.Action != "" {
		filter = append(filter, bson.E{Key: "action", Value: f.Action})
	}
	if f.Actor != "" {
		filter = append(filter, bson.E{Key: "actor", Value: f.Actor})
	}
	span := bson.D{}
	if !f.From.IsZero() {
		span = append(span, bson.E{Key: "$gte", Value: f.From})
	}
	if !f.To.IsZero() {
		span = append(span, bson.E{Key: "$lt", Value: f.To})
	}
	if len(span) > 0 {
		filter = append(filter, bson.E{Key: "time", Value: span})
	}
	return filter
}

// eachDoc streams the documents matching filter to fn, decoded as T, without holding them all.
func eachDoc[T any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder, fn func(T) error) error {
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return translate(op, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	for cur.Next(ctx) {
		var v T
		if err := cur.Decode(&v); err != nil {
			return translate(op, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return translate(op, cur.Err())
}

// suffixed is the id of the i-th of several entries written under one id.
func suffixed(id string, i int) string {
	if i == 0 {
		return id
	}
	return id + "-" + strconv.Itoa(i)
}
