package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Staff is the staff users collection. E-mail addresses are stored trimmed and lower-cased
// under a unique index, so that one address signs in one user whatever its case.
type Staff struct{ c *mongo.Collection }

var _ tenants.StaffRepo = (*Staff)(nil)

// Insert stores a new user; ErrConflict when the id or the e-mail is taken.
func (r *Staff) Insert(ctx context.Context, st tenants.Staff) error {
	st.Email = tenants.StaffEmailKey(st.Email)
	_, err := r.c.InsertOne(ctx, staffDoc(st))
	return translate("insert staff", err)
}

// ByEmail returns the user signing in with email, of any tenant.
func (r *Staff) ByEmail(ctx context.Context, email string) (tenants.Staff, error) {
	var d staffDoc
	err := r.c.FindOne(ctx, bson.D{{Key: "email", Value: tenants.StaffEmailKey(email)}}).Decode(&d)
	return tenants.Staff(d), translate("staff by email", err)
}

// Lookup returns the user with id (session restore; the session carries no tenant to check).
func (r *Staff) Lookup(ctx context.Context, id string) (tenants.Staff, error) {
	var d staffDoc
	err := r.c.FindOne(ctx, byID(id)).Decode(&d)
	return tenants.Staff(d), translate("get staff", err)
}

// List returns the tenant's users, newest first.
func (r *Staff) List(ctx context.Context, tenantID string) ([]tenants.Staff, error) {
	return r.list(ctx, bson.D{{Key: "tenantId", Value: tenantID}})
}

// ListAll returns every user, newest first (platform admin).
func (r *Staff) ListAll(ctx context.Context) ([]tenants.Staff, error) {
	return r.list(ctx, bson.D{})
}

func (r *Staff) list(ctx context.Context, filter bson.D) ([]tenants.Staff, error) {
	docs, err := findAll[staffDoc](ctx, r.c, "list staff", filter, newestFirst())
	return convertDocs(docs, err, func(d staffDoc) tenants.Staff { return tenants.Staff(d) })
}

// Count returns how many staff users exist (first start creates the platform admin).
func (r *Staff) Count(ctx context.Context) (int64, error) {
	n, err := r.c.CountDocuments(ctx, bson.D{})
	return n, translate("count staff", err)
}

// SetDisabled disables or re-enables the user.
func (r *Staff) SetDisabled(ctx context.Context, id string, disabled bool) error {
	return r.set(ctx, "disable staff", id, bson.D{{Key: "disabled", Value: disabled}})
}

// SetPassword replaces the user's password hash.
func (r *Staff) SetPassword(ctx context.Context, id, hash string, mustChange bool) error {
	return r.set(ctx, "set staff password", id, bson.D{{Key: "passwordHash", Value: hash}, {Key: "mustChangePassword", Value: mustChange}})
}

func (r *Staff) set(ctx context.Context, op, id string, fields bson.D) error {
	res, err := r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: fields}})
	if err != nil {
		return translate(op, err)
	}
	if res.MatchedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}
