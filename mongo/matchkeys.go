package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var _ tenants.MatchKeyRepo = (*Records)(nil)

// SetMatchKeys replaces a record's match keys (one document: the index follows).
func (r *Records) SetMatchKeys(ctx context.Context, tenantID string, kind tenants.Kind, publicID string, keys []string) error {
	c, err := r.col(kind)
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []string{}
	}
	// By _id alone (see getDoc): the id is built from the tenant's, so it names that tenant's record only.
	res, err := c.UpdateOne(ctx, byID(tenants.RecordID(tenantID, kind, publicID)),
		bson.D{{Key: "$set", Value: bson.D{{Key: "matchKeys", Value: keys}}}, {Key: "$inc", Value: bson.D{{Key: "rev", Value: 1}}}})
	if err != nil {
		return translate("set match keys", err)
	}
	if res.MatchedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}
