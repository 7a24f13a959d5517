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

// Records holds the four record collections.
type Records struct {
	cols map[tenants.Kind]*mongo.Collection
}

var _ tenants.RecordStore = (*Records)(nil)

func newRecords(db *mongo.Database) *Records {
	r := &Records{cols: map[tenants.Kind]*mongo.Collection{}}
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
		docs[i] = recs[i]
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
			errs[we.Index] = fmt.Errorf("insert record: %s (code %d)", we.Message, we.Code)
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
	if err := c.FindOne(ctx, byID(id)).Decode(&rec); err != nil {
		return rec, translate("get record", err)
	}
	if rec.TenantID != tenantID {
		return tenants.Record{}, tenants.ErrNotFound
	}
	normaliseRecord(&rec)
	return rec, nil
}

// Replace overwrites the tenant's record (anonymisation writes the stripped record whole).
func (r *Records) Replace(ctx context.Context, rec tenants.Record) error {
	c, err := r.col(rec.Kind)
	if err != nil {
		return err
	}
	_, err = c.ReplaceOne(ctx, byID(rec.ID), rec)
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
	var out []tenants.Record
	if err := cur.All(ctx, &out); err != nil {
		return nil, translate("list records", err)
	}
	for i := range out {
		normaliseRecord(&out[i])
	}
	return out, nil
}

// Count returns how many records of kind the tenant has.
func (r *Records) Count(ctx context.Context, tenantID string, kind tenants.Kind) (int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return 0, err
	}
	n, err := c.CountDocuments(ctx, bson.D{{Key: "tenantId", Value: tenantID}})
	return n, translate("count records", err)
}

// consentNames are the consents CountConsents accepts: field names, never caller text.
var consentNames = map[string]bool{"primaryPurpose": true, "generalContactEmail": true, "generalContactPhone": true}

// CountConsents counts the tenant's records of kind per status of one consent (primaryPurpose,
// generalContactEmail or generalContactPhone), read at now: a granted consent whose deadline
// has passed counts as expired, as everywhere else (CONTRACT.md §4).
func (r *Records) CountConsents(ctx context.Context, tenantID string, kind tenants.Kind, consent string, now time.Time) (map[tenants.ConsentStatus]int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return nil, err
	}
	if !consentNames[consent] {
		return nil, fmt.Errorf("unknown consent %q", consent)
	}
	status, deadline := "consents."+consent+".status", "consents."+consent+".deadline"
	count := func(extra ...bson.E) (int64, error) {
		n, err := c.CountDocuments(ctx, append(bson.D{{Key: "tenantId", Value: tenantID}}, extra...))
		return n, translate("count consents", err)
	}
	total, err := count()
	if err != nil {
		return nil, err
	}
	granted, err := count(bson.E{Key: status, Value: string(tenants.StatusGranted)})
	if err != nil {
		return nil, err
	}
	passed, err := count(bson.E{Key: status, Value: string(tenants.StatusGranted)},
		bson.E{Key: deadline, Value: bson.D{{Key: "$lte", Value: now}}})
	if err != nil {
		return nil, err
	}
	expired, err := count(bson.E{Key: status, Value: string(tenants.StatusExpired)})
	if err != nil {
		return nil, err
	}
	revoked, err := count(bson.E{Key: status, Value: string(tenants.StatusRevoked)})
	if err != nil {
		return nil, err
	}
	return map[tenants.ConsentStatus]int64{
		tenants.StatusGranted:    granted - passed,
		tenants.StatusExpired:    expired + passed,
		tenants.StatusRevoked:    revoked,
		tenants.StatusNotGranted: max(total-granted-expired-revoked, 0),
	}, nil
}

// ReplaceMany overwrites records whole, one bulk write per kind.
func (r *Records) ReplaceMany(ctx context.Context, recs []tenants.Record) error {
	return r.bulk(ctx, "replace records", recs, func(rec tenants.Record) mongo.WriteModel {
		return mongo.NewReplaceOneModel().SetFilter(byID(rec.ID)).SetReplacement(rec)
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

// normaliseRecord turns the driver's array type back into the plain []any the domain uses.
func normaliseRecord(rec *tenants.Record) {
	rec.Payload = normaliseMap(rec.Payload)
	rec.Fields = normaliseMap(rec.Fields)
}

func normaliseMap(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = normaliseValue(v)
	}
	return m
}

func normaliseValue(v any) any {
	switch t := v.(type) {
	case bson.A:
		out := make([]any, len(t))
		for i := range t {
			out[i] = normaliseValue(t[i])
		}
		return out
	case []any:
		for i := range t {
			t[i] = normaliseValue(t[i])
		}
		return t
	case map[string]any:
		return normaliseMap(t)
	case bson.M:
		return normaliseMap(map[string]any(t))
	case bson.D:
		m := make(map[string]any, len(t))
		for _, e := range t {
			m[e.Key] = normaliseValue(e.Value)
		}
		return m
	case bson.DateTime:
		return t.Time().UTC()
	default:
		return v
	}
}
