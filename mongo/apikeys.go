package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// APIKeys is the apikeys collection, keyed by the key id that every plaintext key carries,
// so authentication is one _id read.
type APIKeys struct{ c *mongo.Collection }

var _ tenants.KeyRepo = (*APIKeys)(nil)

// Insert stores a new key; ErrConflict when the id is taken.
func (r *APIKeys) Insert(ctx context.Context, k tenants.APIKey) error {
	_, err := r.c.InsertOne(ctx, apiKeyDoc(k))
	return translate("insert api key", err)
}

// Lookup returns the key with id, of any tenant: authentication does not know the tenant
// before it has the key.
func (r *APIKeys) Lookup(ctx context.Context, id string) (tenants.APIKey, error) {
	var d apiKeyDoc
	err := r.c.FindOne(ctx, byID(id)).Decode(&d)
	return tenants.APIKey(d), translate("lookup api key", err)
}

// Get returns the tenant's key with id.
func (r *APIKeys) Get(ctx context.Context, tenantID, id string) (tenants.APIKey, error) {
	var d apiKeyDoc
	err := r.c.FindOne(ctx, ofTenant(tenantID, id)).Decode(&d)
	return tenants.APIKey(d), translate("get api key", err)
}

// List returns the tenant's keys, newest first.
func (r *APIKeys) List(ctx context.Context, tenantID string) ([]tenants.APIKey, error) {
	docs, err := findAll[apiKeyDoc](ctx, r.c, "list api keys", bson.D{{Key: "tenantId", Value: tenantID}}, newestFirst())
	return convertDocs(docs, err, func(d apiKeyDoc) tenants.APIKey { return tenants.APIKey(d) })
}

// Revoke marks the tenant's key revoked at now.
func (r *APIKeys) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	return updateOne(ctx, r.c, "revoke api key", ofTenant(tenantID, id), bson.D{{Key: "$set", Value: bson.D{{Key: "revokedAt", Value: now}}}})
}

// Touch records the key's last use; it names no tenant, as Lookup does.
func (r *APIKeys) Touch(ctx context.Context, id string, now time.Time) error {
	return updateOne(ctx, r.c, "touch api key", byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "lastUsedAt", Value: now}}}})
}

// OriginAllowed reports whether a usable publishable key of any tenant lists origin; it names
// no tenant, as Lookup does (the preflight it serves carries no key).
func (r *APIKeys) OriginAllowed(ctx context.Context, origin string, now time.Time) (bool, error) {
	n, err := r.c.CountDocuments(ctx, bson.D{{Key: "publishable", Value: true}, {Key: "origins", Value: origin},
		{Key: "revokedAt", Value: nil},
		{Key: "$or", Value: bson.A{bson.D{{Key: "expiresAt", Value: nil}}, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$gt", Value: now}}}}}}},
		options.Count().SetLimit(1))
	return n > 0, translate("find publishable key origin", err)
}
