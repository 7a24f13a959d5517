package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// WebhookTokens holds the per-tenant Mailchimp webhook tokens (hashed), keyed by token id.
type WebhookTokens struct{ c *mongo.Collection }

// Insert stores a new token.
func (r *WebhookTokens) Insert(ctx context.Context, t tenants.WebhookToken) error {
	_, err := r.c.InsertOne(ctx, t)
	return translate("insert webhook token", err)
}

// Lookup returns the token with id, of any tenant (the URL carries no tenant).
func (r *WebhookTokens) Lookup(ctx context.Context, id string) (tenants.WebhookToken, error) {
	var t tenants.WebhookToken
	err := r.c.FindOne(ctx, byID(id)).Decode(&t)
	return t, translate("lookup webhook token", err)
}

// List returns the tenant's tokens, newest first.
func (r *WebhookTokens) List(ctx context.Context, tenantID string) ([]tenants.WebhookToken, error) {
	cur, err := r.c.Find(ctx, bson.D{{Key: "tenantId", Value: tenantID}}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}))
	if err != nil {
		return nil, translate("list webhook tokens", err)
	}
	var out []tenants.WebhookToken
	return out, translate("list webhook tokens", cur.All(ctx, &out))
}

// Revoke marks the tenant's token revoked.
func (r *WebhookTokens) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	t, err := r.Lookup(ctx, id)
	if err != nil {
		return err
	}
	if t.TenantID != tenantID {
		return tenants.ErrNotFound
	}
	_, err = r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "revokedAt", Value: now}}}})
	return translate("revoke webhook token", err)
}
