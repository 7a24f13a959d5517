package mongo

import (
	"context"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Staff is the staff users collection.
type Staff struct{ c *mongo.Collection }

// Insert stores a new user; ErrConflict when the e-mail is taken.
func (r *Staff) Insert(ctx context.Context, s tenants.Staff) error {
	s.Email = strings.ToLower(strings.TrimSpace(s.Email))
	_, err := r.c.InsertOne(ctx, s)
	return translate("insert staff", err)
}

// ByEmail returns the user signing in with email, of any tenant.
func (r *Staff) ByEmail(ctx context.Context, email string) (tenants.Staff, error) {
	var s tenants.Staff
	err := r.c.FindOne(ctx, bson.D{{Key: "email", Value: strings.ToLower(strings.TrimSpace(email))}}).Decode(&s)
	return s, translate("staff by email", err)
}

// Lookup returns the user with id (session restore; the session carries no tenant to check).
func (r *Staff) Lookup(ctx context.Context, id string) (tenants.Staff, error) {
	var s tenants.Staff
	err := r.c.FindOne(ctx, byID(id)).Decode(&s)
	return s, translate("get staff", err)
}

// List returns the tenant's users; tenantID "" lists every user (platform admin).
func (r *Staff) List(ctx context.Context, tenantID string) ([]tenants.Staff, error) {
	filter := bson.D{}
	if tenantID != "" {
		filter = bson.D{{Key: "tenantId", Value: tenantID}}
	}
	cur, err := r.c.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}))
	if err != nil {
		return nil, translate("list staff", err)
	}
	var out []tenants.Staff
	return out, translate("list staff", cur.All(ctx, &out))
}

// Count returns how many staff users exist (first start creates the platform admin).
func (r *Staff) Count(ctx context.Context) (int64, error) {
	n, err := r.c.CountDocuments(ctx, bson.D{})
	return n, translate("count staff", err)
}
