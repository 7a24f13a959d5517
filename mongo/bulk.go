package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Bulk keeps bulk erasure requests, one document each. The conditional changes of BulkRepo are
// single-document updates whose filter holds the condition.
type Bulk struct{ c *mongo.Collection }

var _ tenants.BulkRepo = (*Bulk)(nil)

// InsertBulk implements tenants.BulkRepo.
func (r *Bulk) InsertBulk(ctx context.Context, b tenants.BulkErasure) error {
	_, err := r.c.InsertOne(ctx, bulkDoc(b))
	return translate("insert bulk erasure", err)
}

// GetBulk implements tenants.BulkRepo.
func (r *Bulk) GetBulk(ctx context.Context, tenantID, id string) (tenants.BulkErasure, error) {
	var d bulkDoc
	err := r.c.FindOne(ctx, ofTenant(tenantID, id)).Decode(&d)
	return tenants.BulkErasure(d), translate("get bulk erasure", err)
}

// ListBulk implements tenants.BulkRepo.
func (r *Bulk) ListBulk(ctx context.Context, tenantID string) ([]tenants.BulkErasure, error) {
	return r.find(ctx, "list bulk erasures", bson.D{{Key: "tenantId", Value: tenantID}},
		options.Find().SetSort(bson.D{desc("requestedAt"), asc("_id")}).SetProjection(bson.D{{Key: "keys", Value: 0}}))
}

// RunnableBulk implements tenants.BulkRepo.
func (r *Bulk) RunnableBulk(ctx context.Context) ([]tenants.BulkErasure, error) {
	return r.find(ctx, "runnable bulk erasures", bson.D{{Key: "status", Value: tenants.BulkApproved}},
		options.Find().SetSort(bson.D{asc("status"), asc("expiresAt")}))
}

// ExpiredBulk implements tenants.BulkRepo.
func (r *Bulk) ExpiredBulk(ctx context.Context, now time.Time) ([]tenants.BulkErasure, error) {
	return r.find(ctx, "expired bulk erasures",
		bson.D{{Key: "status", Value: tenants.BulkPending}, {Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}},
		options.Find().SetSort(bson.D{asc("status"), asc("expiresAt")}))
}

func (r *Bulk) find(ctx context.Context, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]tenants.BulkErasure, error) {
	docs, err := findAll[bulkDoc](ctx, r.c, op, filter, opts)
	return convertDocs(docs, err, func(d bulkDoc) tenants.BulkErasure { return tenants.BulkErasure(d) })
}

// DecideBulk implements tenants.BulkRepo.
func (r *Bulk) DecideBulk(ctx context.Context, tenantID, id, status, by string, at time.Time) error {
	return r.update(ctx, tenantID, id, bson.E{Key: "status", Value: tenants.BulkPending},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: status}, {Key: "decidedBy", Value: by}, {Key: "decidedAt", Value: at}}}})
}

// ProgressBulk implements tenants.BulkRepo.
func (r *Bulk) ProgressBulk(ctx context.Context, tenantID, id string, done int, erased map[string]int) error {
	return r.update(ctx, tenantID, id, bson.E{Key: "done", Value: bson.D{{Key: "$lt", Value: done}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "done", Value: done}, {Key: "erased", Value: erased}}}},
		bson.E{Key: "status", Value: tenants.BulkApproved})
}

// FinishBulk implements tenants.BulkRepo.
func (r *Bulk) FinishBulk(ctx context.Context, tenantID, id, status string, at time.Time) error {
	return updateOne(ctx, r.c, "finish bulk erasure", ofTenant(tenantID, id),
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: status}, {Key: "finishedAt", Value: at}, {Key: "keys", Value: bson.A{}}}}})
}

// update applies update when the request meets the conditions: ErrNotFound when there is no
// such request, ErrConflict when it does not meet them.
func (r *Bulk) update(ctx context.Context, tenantID, id string, cond bson.E, update bson.D, more ...bson.E) error {
	filter := append(append(ofTenant(tenantID, id), cond), more...)
	res, err := r.c.UpdateOne(ctx, filter, update)
	if err != nil {
		return translate("update bulk erasure", err)
	}
	if res.MatchedCount == 1 {
		return nil
	}
	if _, err := r.GetBulk(ctx, tenantID, id); errors.Is(err, tenants.ErrNotFound) {
		return err
	}
	return tenants.ErrConflict
}
