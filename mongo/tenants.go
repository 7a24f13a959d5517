package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Tenants is the tenants collection. A tenant's own id is its key, so its methods take it as
// the tenant argument.
type Tenants struct{ c *mongo.Collection }

var _ tenants.TenantStore = (*Tenants)(nil)

// Insert stores a new tenant.
func (r *Tenants) Insert(ctx context.Context, t tenants.Tenant) error {
	_, err := r.c.InsertOne(ctx, t)
	return translate("insert tenant", err)
}

// Get returns the tenant with id.
func (r *Tenants) Get(ctx context.Context, id string) (tenants.Tenant, error) {
	var t tenants.Tenant
	err := r.c.FindOne(ctx, byID(id)).Decode(&t)
	return t, translate("get tenant", err)
}

// List returns every tenant, newest first (platform admin only; tenants are few).
func (r *Tenants) List(ctx context.Context) ([]tenants.Tenant, error) {
	cur, err := r.c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}))
	if err != nil {
		return nil, translate("list tenants", err)
	}
	var out []tenants.Tenant
	return out, translate("list tenants", cur.All(ctx, &out))
}

// SetRateLimit changes the tenant's per-key rate limit.
func (r *Tenants) SetRateLimit(ctx context.Context, tenantID string, perSecond int) error {
	return r.update(ctx, tenantID, bson.D{{Key: "rateLimit", Value: perSecond}})
}

// SetStatus suspends or reactivates the tenant.
func (r *Tenants) SetStatus(ctx context.Context, tenantID, status string) error {
	return r.update(ctx, tenantID, bson.D{{Key: "status", Value: status}})
}

func (r *Tenants) update(ctx context.Context, id string, set bson.D) error {
	res, err := r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return translate("update tenant", err)
	}
	if res.MatchedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}

// SetSendGridKey stores (or clears, with "") the tenant's SendGrid verification key.
func (r *Tenants) SetSendGridKey(ctx context.Context, tenantID, key string) error {
	return r.update(ctx, tenantID, bson.D{{Key: "sendgridPublicKey", Value: key}})
}

// byID is the only filter the embedded store answers without a scan.
func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }
