package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// WebhookTokens holds the per-tenant Mailchimp webhook tokens (hashed), keyed by token id.
type WebhookTokens struct{ c *mongo.Collection }

var _ tenants.TokenRepo = (*WebhookTokens)(nil)

// Insert stores a new token; ErrConflict when the id is taken.
func (r *WebhookTokens) Insert(ctx context.Context, t tenants.WebhookToken) error {
	_, err := r.c.InsertOne(ctx, tokenDoc(t))
	return translate("insert webhook token", err)
}

// Lookup returns the token with id, of any tenant (the webhook URL carries no tenant).
func (r *WebhookTokens) Lookup(ctx context.Context, id string) (tenants.WebhookToken, error) {
	var d tokenDoc
	err := r.c.FindOne(ctx, byID(id)).Decode(&d)
	return tenants.WebhookToken(d), translate("lookup webhook token", err)
}

// List returns the tenant's tokens, newest first.
func (r *WebhookTokens) List(ctx context.Context, tenantID string) ([]tenants.WebhookToken, error) {
	docs, err := findAll[tokenDoc](ctx, r.c, "list webhook tokens", bson.D{{Key: "tenantId", Value: tenantID}}, newestFirst())
	return convertDocs(docs, err, func(d tokenDoc) tenants.WebhookToken { return tenants.WebhookToken(d) })
}

// Revoke marks the tenant's token revoked at now.
func (r *WebhookTokens) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	return updateOne(ctx, r.c, "revoke webhook token", ofTenant(tenantID, id), bson.D{{Key: "$set", Value: bson.D{{Key: "revokedAt", Value: now}}}})
}

// Touch records the token's last use.
func (r *WebhookTokens) Touch(ctx context.Context, id string, now time.Time) error {
	return updateOne(ctx, r.c, "record webhook token use", byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "lastUsedAt", Value: now}}}})
}
