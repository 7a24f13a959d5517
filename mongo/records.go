package mongo

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Records reads the four record collections, one per kind, each document keyed by
// tenants.RecordID so that a repeated ingestion collides on _id.
type Records struct {
	cols map[tenants.Kind]*mongo.Collection
	meta *mongo.Collection // colMeta
}

var _ tenants.RecordRepo = (*Records)(nil)

func newRecords(db *mongo.Database) *Records {
	r := &Records{cols: map[tenants.Kind]*mongo.Collection{}, meta: db.Collection(colMeta)}
	for kind, name := range recordCollections {
		r.cols[kind] = db.Collection(name)
	}
	return r
}

// col returns the collection of kind.
func (r *Records) col(kind tenants.Kind) (*mongo.Collection, error) {
	c, ok := r.cols[kind]
	if !ok {
		return nil, fmt.Errorf("unknown record kind %q", kind)
	}
	return c, nil
}

// Get returns the tenant's record of kind with publicID.
func (r *Records) Get(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (tenants.Record, error) {
	d, err := r.getDoc(ctx, tenantID, kind, tenants.RecordID(tenantID, kind, publicID))
	if err != nil {
		return tenants.Record{}, err
	}
	return d.record()
}

// getDoc reads the tenant's record of kind with storage id id.
func (r *Records) getDoc(ctx context.Context, tenantID string, kind tenants.Kind, id string) (recordDoc, error) {
	var d recordDoc
	c, err := r.col(kind)
	if err != nil {
		return d, err
	}
	// By _id alone, the tenant checked here: a record's _id begins with its tenant's id, so the
	// filter reaches that tenant's record only either way, and MongoDB's stand-in in the tests
	// (FerretDB) answers only an exact {_id} filter without reading the whole collection.
	err = c.FindOne(ctx, byID(id)).Decode(&d)
	if err == nil && d.TenantID != tenantID {
		return recordDoc{}, tenants.ErrNotFound
	}
	return d, translate("get record", err)
}

// Find returns the tenant's records of kinds (every kind when none) that carry any of
// matchKeys, through the match key index.
func (r *Records) Find(ctx context.Context, tenantID string, matchKeys []string, kinds ...tenants.Kind) ([]tenants.Record, error) {
	docs, err := r.findDocs(ctx, tenantID, matchKeys, kinds)
	if err != nil {
		return nil, err
	}
	out := make([]tenants.Record, len(docs))
	for i, d := range docs {
		if out[i], err = d.record(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// findDocs reads the records carrying any of matchKeys from the collections of kinds at once.
func (r *Records) findDocs(ctx context.Context, tenantID string, matchKeys []string, kinds []tenants.Kind) ([]recordDoc, error) {
	if len(matchKeys) == 0 {
		return []recordDoc{}, nil // no key finds nobody
	}
	if len(kinds) == 0 {
		kinds = tenants.Kinds()
	}
	filter := bson.D{{Key: "tenantId", Value: tenantID}, {Key: "matchKeys", Value: bson.D{{Key: "$in", Value: matchKeys}}}}
	found := make([][]recordDoc, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, kind := range kinds {
		c, err := r.col(kind)
		if err != nil {
			return nil, err
		}
		wg.Go(func() {
			found[i], errs[i] = findAll[recordDoc](ctx, c, "find records", filter, options.Find().SetSort(bson.D{asc("_id")}))
		})
	}
	wg.Wait()
	var out []recordDoc
	for i := range kinds {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, found[i]...)
	}
	return out, nil
}

// List returns a page of the tenant's records of kind, newest first, filtered by p.
func (r *Records) List(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page) ([]tenants.Record, error) {
	c, err := r.col(kind)
	if err != nil {
		return nil, err
	}
	filter, err := listFilter(tenantID, p)
	if err != nil {
		return nil, err
	}
	sort := bson.D{desc("createdAt"), desc("_id")}
	if p.Cursor != nil {
		// The row's _id follows from its public id: a row that is gone still has its place.
		bound, ties := cursorRange("createdAt", "_id", p.Cursor, tenants.RecordID(tenantID, kind, p.Cursor.ID))
		filter = append(filter, bson.E{Key: "createdAt", Value: bson.D{bound}}, ties)
		if p.Cursor.Newer {
			sort = bson.D{asc("createdAt"), asc("_id")}
		}
	}
	opts := options.Find().SetSort(sort)
	if p.Limit > 0 {
		opts.SetLimit(p.Limit)
	}
	var out []tenants.Record
	err = eachDoc(ctx, c, "list records", filter, opts, func(d recordDoc) error {
		rec, err := d.record()
		out = append(out, rec)
		return err
	})
	if p.Cursor != nil && p.Cursor.Newer { // read closest first
		slices.Reverse(out)
	}
	return out, err
}

// cursorRange is the position (c.Time, tie) in the order (time field, tieField): the operator
// that bounds the time field (so that the read stays on the list's index) and the condition
// that breaks ties within the time. The rows are older, or with c.Newer newer.
func cursorRange(timeField, tieField string, c *tenants.Cursor, tie any) (bson.E, bson.E) {
	op, opEq := "$lt", "$lte"
	if c.Newer {
		op, opEq = "$gt", "$gte"
	}
	return bson.E{Key: opEq, Value: c.Time}, bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: timeField, Value: bson.D{{Key: op, Value: c.Time}}}},
		bson.D{{Key: tieField, Value: bson.D{{Key: op, Value: tie}}}},
	}}
}

// listFilter is the filter of a list's filters (form, consent status at p.Now, of live records).
func listFilter(tenantID string, p tenants.Page) (bson.D, error) {
	filter := bson.D{{Key: "tenantId", Value: tenantID}}
	if p.FormID != "" {
		filter = append(filter, bson.E{Key: "formId", Value: p.FormID})
	}
	if p.Status != "" {
		cond, err := statusFilter(p.Consent, p.Status, p.Now)
		if err != nil {
			return nil, err
		}
		// An anonymised record's consents are nobody's: a status filter lists live records,
		// as the dashboard counts them.
		filter = append(filter, bson.E{Key: "$and", Value: bson.A{cond}}, bson.E{Key: "anonymisedAt", Value: nil})
	}
	return filter, nil
}

// Count returns how many records of kind the tenant has (counted in the tenant's index).
func (r *Records) Count(ctx context.Context, tenantID string, kind tenants.Kind) (int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return 0, err
	}
	n, err := c.CountDocuments(ctx, bson.D{{Key: "tenantId", Value: tenantID}})
	return n, translate("count records", err)
}
