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
// so authentication is one _id lookup.
type APIKeys struct{ c *mongo.Collection }

var _ tenants.KeyStore = (*APIKeys)(nil)

// Insert stores a new key.
func (r *APIKeys) Insert(ctx context.Context, k tenants.APIKey) error {
	_, err := r.c.InsertOne(ctx, k)
	return translate("insert api key", err)
}

// Lookup returns the key with id, of any tenant: authentication does not know the tenant
// before it has the key. Everything else goes through Get.
func (r *APIKeys) Lookup(ctx context.Context, id string) (tenants.APIKey, error) {
	var k tenants.APIKey
	err := r.c.FindOne(ctx, byID(id)).Decode(&k)
	return k, translate("lookup api key", err)
}

// Get returns tenant's key with id.
func (r *APIKeys) Get(ctx context.Context, tenantID, id string) (tenants.APIKey, error) {
	k, err := r.Lookup(ctx, id)
	if err == nil && k.TenantID != tenantID {
		return tenants.APIKey{}, tenants.ErrNotFound
	}
	return k, err
}

// List returns the tenant's keys, newest first.
func (r *APIKeys) List(ctx context.Context, tenantID string) ([]tenants.APIKey, error) {
	cur, err := r.c.Find(ctx, bson.D{{Key: "tenantId", Value: tenantID}}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}))
	if err != nil {
		return nil, translate("list api keys", err)
	}
	var out []tenants.APIKey
	return out, translate("list api keys", cur.All(ctx, &out))
}

// Revoke marks tenant's key revoked at now.
func (r *APIKeys) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	if _, err := r.Get(ctx, tenantID, id); err != nil {
		return err
	}
	_, err := r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "revokedAt", Value: now}}}})
	return translate("revoke api key", err)
}

// Touch records the key's last use.
func (r *APIKeys) Touch(ctx context.Context, id string, now time.Time) error {
	_, err := r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "lastUsedAt", Value: now}}}})
	return translate("touch api key", err)
}
