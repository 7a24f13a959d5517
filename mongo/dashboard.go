package mongo

import (
	"context"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// CreatedPerDay counts the tenant's records of kind created in [from, to) per UTC day. The
// query reads only the index of creation times (its projection is covered by tenant_created).
func (r *Records) CreatedPerDay(ctx context.Context, tenantID string, kind tenants.Kind, from, to time.Time) (map[time.Time]int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return nil, err
	}
	filter := bson.D{{Key: "tenantId", Value: tenantID}, {Key: "createdAt", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}
	opts := options.Find().SetProjection(bson.D{{Key: "createdAt", Value: 1}, {Key: "_id", Value: 0}})
	return perDay(ctx, c, "created per day", filter, opts, func(raw bson.Raw) (time.Time, bool) {
		v, err := raw.LookupErr("createdAt")
		if err != nil {
			return time.Time{}, false
		}
		t, ok := v.TimeOK()
		return t, ok
	})
}

// ExpiringPerDay counts the tenant's live records of every kind whose consent is granted with a
// deadline in (from, to], per UTC day of the deadline, from the re-permission list's index.
func (r *Records) ExpiringPerDay(ctx context.Context, tenantID string, consent tenants.ConsentName, from, to time.Time) (map[time.Time]int64, error) {
	if consent != tenants.ConsentGeneralContactEmail && consent != tenants.ConsentGeneralContactPhone {
		return nil, fmt.Errorf("expiring per day: no index of the deadlines of %q", consent)
	}
	st, dl := "consents."+string(consent)+".status", "consents."+string(consent)+".deadline"
	filter := bson.D{{Key: "tenantId", Value: tenantID}, {Key: st, Value: tenants.StatusGranted}, {Key: "anonymisedAt", Value: nil},
		{Key: dl, Value: bson.D{{Key: "$gt", Value: from}, {Key: "$lte", Value: to}}}}
	out := map[time.Time]int64{}
	for _, kind := range tenants.Kinds() {
		c, err := r.col(kind)
		if err != nil {
			return nil, err
		}
		opts := options.Find().SetProjection(bson.D{{Key: dl, Value: 1}, {Key: "_id", Value: 0}})
		days, err := perDay(ctx, c, "expiring per day", filter, opts, func(raw bson.Raw) (time.Time, bool) {
			v, err := raw.LookupErr("consents", string(consent), "deadline")
			if err != nil {
				return time.Time{}, false
			}
			t, ok := v.TimeOK()
			return t, ok
		})
		if err != nil {
			return nil, err
		}
		for d, n := range days {
			out[d] += n
		}
	}
	return out, nil
}

// perDay counts the documents of filter per UTC day of the time at reads from each.
func perDay(ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder, at func(bson.Raw) (time.Time, bool)) (map[time.Time]int64, error) {
	out := map[time.Time]int64{}
	err := eachDoc(ctx, c, op, filter, opts, func(raw bson.Raw) error {
		if t, ok := at(raw); ok {
			out[tenants.Day(t)]++
		}
		return nil
	})
	return out, err
}
