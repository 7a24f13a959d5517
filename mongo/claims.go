package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// claims is the erasureclaims collection: which erasure is anonymising which record. A claim
// is an insert under a unique _id (the record's id and a generation), which exactly one of
// any number of concurrent erasures wins on MongoDB and on FerretDB alike; a conditional
// update would not do (FerretDB checks an update's filter before the write, not with it).
// Taking over the claim of an erasure that stopped inserts the next generation. Claims live
// only while an erasure runs: the one that strips a record removes them.
type claims struct{ c *mongo.Collection }

type claimDoc struct {
	ID        string    `bson:"_id"`
	TenantID  string    `bson:"tenantId"`
	RecordID  string    `bson:"recordId"`
	Gen       int       `bson:"gen"`
	ErasureID string    `bson:"erasureId"`
	At        time.Time `bson:"at"`
}

// latest returns the record's claim of the highest generation; found is false when none.
func (r *claims) latest(ctx context.Context, tenantID, recordID string) (last claimDoc, found bool, err error) {
	err = r.c.FindOne(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "recordId", Value: recordID}},
		options.FindOne().SetSort(bson.D{desc("gen")})).Decode(&last)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return last, false, nil
	}
	return last, err == nil, translate("read erasure claim", err)
}

// insert claims the record for erasureID at generation gen; won is false when another
// erasure holds that generation.
func (r *claims) insert(ctx context.Context, tenantID, recordID string, gen int, erasureID string, at time.Time) (won bool, err error) {
	_, err = r.c.InsertOne(ctx, claimDoc{ID: fmt.Sprintf("%s#%d", recordID, gen), TenantID: tenantID, RecordID: recordID,
		Gen: gen, ErasureID: erasureID, At: at})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, translate("claim record", err)
}

// release removes the record's claims of every generation.
func (r *claims) release(ctx context.Context, tenantID, recordID string) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "recordId", Value: recordID}})
	return translate("release erasure claims", err)
}

// drop removes one claim.
func (r *claims) drop(ctx context.Context, tenantID, recordID string, gen int) error {
	_, err := r.c.DeleteOne(ctx, ofTenant(tenantID, fmt.Sprintf("%s#%d", recordID, gen)))
	return translate("drop erasure claim", err)
}

// dropErasure removes every claim of one erasure.
func (r *claims) dropErasure(ctx context.Context, tenantID, erasureID string) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "erasureId", Value: erasureID}})
	return translate("give back erasure claims", err)
}
