package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Tenants is the tenants collection; a tenant's id is its _id.
type Tenants struct{ c *mongo.Collection }

var _ tenants.TenantRepo = (*Tenants)(nil)

// Insert stores a new tenant; ErrConflict when the id is taken.
func (r *Tenants) Insert(ctx context.Context, t tenants.Tenant) error {
	_, err := r.c.InsertOne(ctx, toTenantDoc(t))
	return translate("insert tenant", err)
}

// Get returns the tenant with id.
func (r *Tenants) Get(ctx context.Context, id string) (tenants.Tenant, error) {
	var d tenantDoc
	err := r.c.FindOne(ctx, byID(id)).Decode(&d)
	return d.tenant(), translate("get tenant", err)
}

// List returns every tenant, newest first (platform admin; tenants are few).
func (r *Tenants) List(ctx context.Context) ([]tenants.Tenant, error) {
	docs, err := findAll[tenantDoc](ctx, r.c, "list tenants", bson.D{}, newestFirst())
	return convertDocs(docs, err, func(d tenantDoc) tenants.Tenant { return d.tenant() })
}

// SetRateLimit changes the tenant's per-key rate limit.
func (r *Tenants) SetRateLimit(ctx context.Context, tenantID string, perSecond int) error {
	return r.set(ctx, tenantID, "rateLimit", perSecond)
}

// SetStatus suspends or reactivates the tenant.
func (r *Tenants) SetStatus(ctx context.Context, tenantID, status string) error {
	return r.set(ctx, tenantID, "status", status)
}

// SetSendGridKey stores (or clears, with "") the tenant's SendGrid verification key.
func (r *Tenants) SetSendGridKey(ctx context.Context, tenantID, key string) error {
	return r.set(ctx, tenantID, "sendgridPublicKey", key)
}

// SetDefaultCountry stores the tenant's default country ("" clears it).
func (r *Tenants) SetDefaultCountry(ctx context.Context, tenantID, country string) error {
	return r.set(ctx, tenantID, "defaultCountry", country)
}

// SetSMSStopWords stores the tenant's own SMS opt-out words (nil clears them).
func (r *Tenants) SetSMSStopWords(ctx context.Context, tenantID string, words []string) error {
	if len(words) == 0 {
		return updateOne(ctx, r.c, "update tenant", byID(tenantID), bson.D{{Key: "$unset", Value: bson.D{{Key: "smsStopWords", Value: ""}}}})
	}
	return r.set(ctx, tenantID, "smsStopWords", words)
}

// SetIdentity stores the organisation's identity (the zero Identity clears it).
func (r *Tenants) SetIdentity(ctx context.Context, tenantID string, id tenants.Identity) error {
	if d := toIdentityDoc(id); d != nil {
		return r.set(ctx, tenantID, "identity", d)
	}
	return updateOne(ctx, r.c, "update tenant", byID(tenantID), bson.D{{Key: "$unset", Value: bson.D{{Key: "identity", Value: ""}}}})
}

func (r *Tenants) set(ctx context.Context, tenantID, field string, v any) error {
	return updateOne(ctx, r.c, "update tenant", byID(tenantID), bson.D{{Key: "$set", Value: bson.D{{Key: field, Value: v}}}})
}

// byID is the filter of one document by _id, for the collections whose _id is the key a
// caller holds without a tenant (a tenant's own id, a key or token id in a credential).
func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }

// ofTenant is the filter of a tenant's document with id.
func ofTenant(tenantID, id string) bson.D {
	return bson.D{{Key: "tenantId", Value: tenantID}, {Key: "_id", Value: id}}
}

// newestFirst sorts by creation time, newest first, then by id.
func newestFirst() *options.FindOptionsBuilder {
	return options.Find().SetSort(bson.D{desc("createdAt"), asc("_id")})
}

// findAll decodes every document matching filter.
func findAll[T any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]T, error) {
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return nil, translate(op, err)
	}
	out := []T{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, translate(op, err)
	}
	return out, nil
}

// updateOne applies update to the document filter matches: ErrNotFound when none does.
func updateOne(ctx context.Context, c *mongo.Collection, op string, filter, update bson.D) error {
	res, err := c.UpdateOne(ctx, filter, update)
	if err != nil {
		return translate(op, err)
	}
	if res.MatchedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}
