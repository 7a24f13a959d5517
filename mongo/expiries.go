package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Expiries files every consent deadline into a bucket per minute, keyed by the minute, so the
// expiry job reads due deadlines by _id instead of scanning every record.
type Expiries struct{ c *mongo.Collection }

type bucketDoc struct {
	ID    string           `bson:"_id"`
	Items []tenants.Expiry `bson:"items"`
}

type cursorDoc struct {
	ID     string    `bson:"_id"`
	Minute time.Time `bson:"minute"`
}

const cursorID = "cursor"

// BucketMinute is the bucket a deadline falls into: its minute, rounded up so the bucket is
// only read once every deadline in it has passed.
func BucketMinute(t time.Time) time.Time {
	m := t.UTC().Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

func bucketID(minute time.Time) string { return "m:" + minute.UTC().Format("200601021504") }

// Add files deadlines into their buckets in one bulk write.
func (r *Expiries) Add(ctx context.Context, items []tenants.Expiry) error {
	if len(items) == 0 {
		return nil
	}
	models := make([]mongo.WriteModel, 0, len(items))
	for _, it := range items {
		models = append(models, mongo.NewUpdateOneModel().SetFilter(byID(bucketID(BucketMinute(it.Deadline)))).
			SetUpsert(true).SetUpdate(bson.D{{Key: "$push", Value: bson.D{{Key: "items", Value: it}}}}))
	}
	_, err := r.c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	return translate("add expiries", err)
}

// Cursor returns the first minute not yet processed, starting it at now on first use.
func (r *Expiries) Cursor(ctx context.Context, now time.Time) (time.Time, error) {
	var d cursorDoc
	err := r.c.FindOne(ctx, byID(cursorID)).Decode(&d)
	if err = translate("get expiry cursor", err); err == tenants.ErrNotFound {
		m := now.UTC().Truncate(time.Minute)
		return m, r.SetCursor(ctx, m)
	}
	return d.Minute.UTC(), err
}

// SetCursor stores the first minute not yet processed.
func (r *Expiries) SetCursor(ctx context.Context, minute time.Time) error {
	_, err := r.c.ReplaceOne(ctx, byID(cursorID), cursorDoc{ID: cursorID, Minute: minute}, options.Replace().SetUpsert(true))
	return translate("set expiry cursor", err)
}

// Bucket returns the deadlines filed under minute.
func (r *Expiries) Bucket(ctx context.Context, minute time.Time) ([]tenants.Expiry, error) {
	var d bucketDoc
	err := r.c.FindOne(ctx, byID(bucketID(minute))).Decode(&d)
	if err = translate("get expiry bucket", err); err == tenants.ErrNotFound {
		return nil, nil
	}
	return d.Items, err
}

// DropBucket deletes a processed bucket.
func (r *Expiries) DropBucket(ctx context.Context, minute time.Time) error {
	_, err := r.c.DeleteOne(ctx, byID(bucketID(minute)))
	return translate("drop expiry bucket", err)
}
