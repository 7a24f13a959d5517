package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// colSpentTokens holds the used confirmation links, one document per token hash, its _id
// tenant:hash so that a second use is a duplicate key on every instance.
const colSpentTokens = "spenttokens"

// SpentTokens remembers the used confirmation links.
type SpentTokens struct{ c *mongo.Collection }

var _ tenants.SpentTokenRepo = (*SpentTokens)(nil)

type spentToken struct {
	ID        string    `bson:"_id"`
	TenantID  string    `bson:"tenantId"`
	SpentAt   time.Time `bson:"spentAt"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// Spend records the token as spent; first is false when it was already. The tenant's
// documents whose links expired before at are dropped first.
func (r *SpentTokens) Spend(ctx context.Context, tenantID, id string, at, expires time.Time) (bool, error) {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "expiresAt", Value: bson.D{{Key: "$lt", Value: at}}}})
	if err != nil {
		return false, translate("drop expired tokens", err)
	}
	_, err = r.c.InsertOne(ctx, spentToken{ID: tenantID + ":" + id, TenantID: tenantID, SpentAt: at, ExpiresAt: expires})
	err = translate("spend token", err)
	if errors.Is(err, tenants.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// Spent reports whether the tenant's token was spent.
func (r *SpentTokens) Spent(ctx context.Context, tenantID, id string) (bool, error) {
	n, err := r.c.CountDocuments(ctx, bson.D{{Key: "_id", Value: tenantID + ":" + id}, {Key: "tenantId", Value: tenantID}})
	return n > 0, translate("spent token", err)
}
