package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Sessions is the staff sessions collection.
type Sessions struct{ c *mongo.Collection }

var _ tenants.SessionRepo = (*Sessions)(nil)

// sessionDoc is a session as the collection stores it: tenants.Session's fields, named here.
type sessionDoc struct {
	ID        string    `bson:"_id"`
	StaffID   string    `bson:"staffId"`
	CreatedAt time.Time `bson:"createdAt"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// Insert records a session and drops the expired ones.
func (r *Sessions) Insert(ctx context.Context, se tenants.Session) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lt", Value: se.CreatedAt}}}})
	if err != nil {
		return translate("drop expired sessions", err)
	}
	_, err = r.c.InsertOne(ctx, sessionDoc(se))
	return translate("insert session", err)
}

// Get returns the session with id.
func (r *Sessions) Get(ctx context.Context, id string) (tenants.Session, error) {
	var d sessionDoc
	err := r.c.FindOne(ctx, byID(id)).Decode(&d)
	return tenants.Session(d), translate("get session", err)
}

// Delete ends one session.
func (r *Sessions) Delete(ctx context.Context, id string) error {
	_, err := r.c.DeleteOne(ctx, byID(id))
	return translate("delete session", err)
}

// DeleteStaff ends every session of the user but keep.
func (r *Sessions) DeleteStaff(ctx context.Context, staffID, keep string) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "staffId", Value: staffID}, {Key: "_id", Value: bson.D{{Key: "$ne", Value: keep}}}})
	return translate("delete staff sessions", err)
}
