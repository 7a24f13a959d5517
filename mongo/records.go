package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// recordCollections maps each record kind to its collection; the names are SPEC.md's count keys.
var recordCollections = map[tenants.Kind]string{
	tenants.KindFormSubmission: "formSubmissions",
	tenants.KindDigitisation:   "digitisationSubmissions",
	tenants.KindCanvassing:     "canvassingSubmissions",
	tenants.KindPhoneCallTask:  "phoneCallTasks",
}

// Records holds the four record collections and the per-tenant record counters.
type Records struct {
	cols     map[tenants.Kind]*mongo.Collection
	counters *mongo.Collection
}

var _ tenants.RecordStore = (*Records)(nil)

func newRecords(db *mongo.Database) *Records {
	r := &Records{cols: map[tenants.Kind]*mongo.Collection{}, counters: db.Collection("counters")}
	for k, name := range recordCollections {
		r.cols[k] = db.Collection(name)
	}
	return r
}

func (r *Records) col(kind tenants.Kind) (*mongo.Collection, error) {
	c, ok := r.cols[kind]
	if !ok {
		return nil, fmt.Errorf("unknown record kind %q", kind)
	}
	return c, nil
}

// InsertMany stores records of one kind and returns one error per record: nil when stored,
// ErrConflict when a record with the same id exists (an idempotent repeat), else the failure.
func (r *Records) InsertMany(ctx context.Context, kind tenants.Kind, recs []tenants.Record) []error {
	errs := make([]error, len(recs))
	c, err := r.col(kind)
	if err != nil {
		fill(errs, err)
		return errs
	}
	docs := make([]any, len(recs))
	for i := range recs {
		d, err := toDoc(recs[i])
		if err != nil {
			fill(errs, err)
			return errs
		}
		docs[i] = d
	}
	_, err = c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return errs
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		fill(errs, translate("insert records", err))
		return errs
	}
	for _, we := range bwe.WriteErrors {
		if we.Index < 0 || we.Index >= len(errs) {
			continue
		}
		if we.Code == 11000 {
			errs[we.Index] = tenants.ErrConflict
		} else {
			// The server's message may quote the rejected value: only the code is kept.
			errs[we.Index] = fmt.Errorf("insert record: write error code %d", we.Code)
		}
	}
	return errs
}

func fill(errs []error, err error) {
	for i := range errs {
		errs[i] = err
	}
}

// Get returns the tenant's record of kind with publicID.
func (r *Records) Get(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (tenants.Record, error) {
	return r.GetByID(ctx, tenantID, kind, tenants.RecordID(tenantID, kind, publicID))
}

// GetByID returns the tenant's record with storage id; another tenant's id reads as not found.
func (r *Records) GetByID(ctx context.Context, tenantID string, kind tenants.Kind, id string) (tenants.Record, error) {
	var rec tenants.Record
	c, err := r.col(kind)
	if err != nil {
		return rec, err
	}
	var d recordDoc
	if err := c.FindOne(ctx, byID(id)).Decode(&d); err != nil {
		return rec, translate("get record", err)
	}
	if d.TenantID != tenantID {
		return tenants.Record{}, tenants.ErrNotFound
	}
	return fromDoc(d)
}

// Replace overwrites the tenant's record (anonymisation writes the stripped record whole).
func (r *Records) Replace(ctx context.Context, rec tenants.Record) error {
	c, err := r.col(rec.Kind)
	if err != nil {
		return err
	}
	d, err := toDoc(rec)
	if err != nil {
		return err
	}
	_, err = c.ReplaceOne(ctx, byID(rec.ID), d)
	return translate("replace record", err)
}

// SetConsents overwrites the tenant's record's consents.
func (r *Records) SetConsents(ctx context.Context, rec tenants.Record) error {
	c, err := r.col(rec.Kind)
	if err != nil {
		return err
	}
	_, err = c.UpdateOne(ctx, byID(rec.ID), bson.D{{Key: "$set", Value: bson.D{{Key: "consents", Value: rec.Consents}}}})
	return translate("set consents", err)
}

// List returns a page of the tenant's records of kind, newest first.
func (r *Records) List(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page) ([]tenants.Record, error) {
	c, err := r.col(kind)
	if err != nil {
		return nil, err
	}
	filter := bson.D{{Key: "tenantId", Value: tenantID}}
	if p.FormID != "" {
		filter = append(filter, bson.E{Key: "formId", Value: p.FormID})
	}
	opts := options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}).SetSkip(p.Skip).SetLimit(p.Limit)
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return nil, translate("list records", err)
	}
	var docs []recordDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, translate("list records", err)
	}
	out := make([]tenants.Record, len(docs))
	for i := range docs {
		if out[i], err = fromDoc(docs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Count returns how many records of kind the tenant has, from the tenant's counters (one
// read by _id; counting the collection would read all of it on the embedded store).
func (r *Records) Count(ctx context.Context, tenantID string, kind tenants.Kind) (int64, error) {
	var d map[string]any
	err := r.counters.FindOne(ctx, byID(tenantID)).Decode(&d)
	if err = translate("count records", err); err == tenants.ErrNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	switch n := d[string(kind)].(type) {
	case int32:
		return int64(n), nil
	case int64:
		return n, nil
	case float64:
		return int64(n), nil
	}
	return 0, nil
}

// addCounts adds stored records to their tenants' counters: one small update per tenant.
func (r *Records) addCounts(ctx context.Context, counts map[string]map[tenants.Kind]int) error {
	for tenantID, byKind := range counts {
		inc := bson.D{}
		for kind, n := range byKind {
			inc = append(inc, bson.E{Key: string(kind), Value: n})
		}
		_, err := r.counters.UpdateOne(ctx, byID(tenantID), bson.D{{Key: "$inc", Value: inc}}, options.UpdateOne().SetUpsert(true))
		if err != nil {
			return translate("count records", err)
		}
	}
	return nil
}

// ConsentStats counts the tenant's records of kind per consent and status, read at now: a
// granted consent whose deadline has passed counts as expired, as everywhere else
// (CONTRACT.md §4). One pass over the tenant's records, consents only.
func (r *Records) ConsentStats(ctx context.Context, tenantID string, kind tenants.Kind, now time.Time) (map[string]map[tenants.ConsentStatus]int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return nil, err
	}
	cur, err := c.Find(ctx, bson.D{{Key: "tenantId", Value: tenantID}}, options.Find().SetProjection(bson.D{{Key: "consents", Value: 1}}))
	if err != nil {
		return nil, translate("consent stats", err)
	}
	defer cur.Close(ctx)
	out := map[string]map[tenants.ConsentStatus]int64{"primaryPurpose": {}, "generalContactEmail": {}, "generalContactPhone": {}}
	for cur.Next(ctx) {
		var rec struct {
			Consents tenants.Consents `bson:"consents"`
		}
		if err := cur.Decode(&rec); err != nil {
			return nil, translate("consent stats", err)
		}
		out["primaryPurpose"][rec.Consents.PrimaryPurpose.StatusAt(now)]++
		out["generalContactEmail"][rec.Consents.GeneralContactEmail.StatusAt(now)]++
		out["generalContactPhone"][rec.Consents.GeneralContactPhone.StatusAt(now)]++
	}
	return out, translate("consent stats", cur.Err())
}

// ReplaceMany overwrites records whole, one bulk write per kind.
func (r *Records) ReplaceMany(ctx context.Context, recs []tenants.Record) error {
	docs := make(map[string]recordDoc, len(recs))
	for _, rec := range recs {
		d, err := toDoc(rec)
		if err != nil {
			return err
		}
		docs[rec.ID] = d
	}
	return r.bulk(ctx, "replace records", recs, func(rec tenants.Record) mongo.WriteModel {
		return mongo.NewReplaceOneModel().SetFilter(byID(rec.ID)).SetReplacement(docs[rec.ID])
	})
}

// SetConsentsMany overwrites the consents of records, one bulk write per kind.
func (r *Records) SetConsentsMany(ctx context.Context, recs []tenants.Record) error {
	return r.bulk(ctx, "set consents", recs, func(rec tenants.Record) mongo.WriteModel {
		return mongo.NewUpdateOneModel().SetFilter(byID(rec.ID)).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "consents", Value: rec.Consents}}}})
	})
}

func (r *Records) bulk(ctx context.Context, op string, recs []tenants.Record, model func(tenants.Record) mongo.WriteModel) error {
	byKind := map[tenants.Kind][]mongo.WriteModel{}
	for _, rec := range recs {
		byKind[rec.Kind] = append(byKind[rec.Kind], model(rec))
	}
	for kind, models := range byKind {
		c, err := r.col(kind)
		if err != nil {
			return err
		}
		if _, err := c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
			return translate(op, err)
		}
	}
	return nil
}
