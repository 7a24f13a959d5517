package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Challenges is the spentchallenges collection: the spam challenges whose solutions were
// accepted, until they expire. The _id is tenant:challenge, so spending one twice is a
// duplicate key on every instance.
type Challenges struct{ c *mongo.Collection }

var _ tenants.ChallengeRepo = (*Challenges)(nil)

type challengeDoc struct {
	ID        string    `bson:"_id"`
	TenantID  string    `bson:"tenantId"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// Spend records the challenge as spent; ErrConflict when it was. The tenant's expired
// challenges are dropped first.
func (r *Challenges) Spend(ctx context.Context, tenantID, challenge string, expiresAt, now time.Time) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "expiresAt", Value: bson.D{{Key: "$lt", Value: now}}}})
	if err != nil {
		return translate("drop expired challenges", err)
	}
	_, err = r.c.InsertOne(ctx, challengeDoc{ID: tenants.FormKey(tenantID, challenge), TenantID: tenantID, ExpiresAt: expiresAt})
	return translate("spend challenge", err)
}
