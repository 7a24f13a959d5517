package mongo

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

var _ tenants.MatchKeyRepo = (*Records)(nil)

// colMeta holds facts about the store as a whole, one document per fact.
const colMeta = "storemeta"

// Rekey replaces each record's contact phone and match keys (one document each: the index
// follows), one update per record; a repeat of a batch stopped part-way finishes it.
func (r *Records) Rekey(ctx context.Context, batch []tenants.Rekeying) error {
	for _, k := range batch {
		c, err := r.col(k.Kind)
		if err != nil {
			return err
		}
		keys := k.Keys
		if keys == nil {
			keys = []string{}
		}
		// By _id alone (see getDoc): the id is built from the tenant's, so it names that tenant's record only.
		res, err := c.UpdateOne(ctx, byID(tenants.RecordID(k.TenantID, k.Kind, k.PublicID)),
			bson.D{{Key: "$set", Value: bson.D{{Key: "matchKeys", Value: keys}, {Key: "contact.phoneNumber", Value: k.Phone}}},
				{Key: "$inc", Value: bson.D{{Key: "rev", Value: 1}}}})
		if err != nil {
			return translate("rekey record", err)
		}
		if res.MatchedCount == 0 {
			return tenants.ErrNotFound
		}
	}
	return nil
}

// KeyingVersion implements tenants.MatchKeyRepo.
func (r *Records) KeyingVersion(ctx context.Context) (int, error) {
	var d struct {
		Value int `bson:"value"`
	}
	err := r.meta.FindOne(ctx, byID("keyingVersion")).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	return d.Value, translate("keying version", err)
}

// SetKeyingVersion implements tenants.MatchKeyRepo.
func (r *Records) SetKeyingVersion(ctx context.Context, version int) error {
	_, err := r.meta.UpdateOne(ctx, byID("keyingVersion"), bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: version}}}},
		options.UpdateOne().SetUpsert(true))
	return translate("set keying version", err)
}
