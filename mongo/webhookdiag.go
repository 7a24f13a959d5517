package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// WebhookDiag keeps the inbound webhook diagnostics: collection webhookdiag, one document
// per tenant and provider (_id "<tenant>:<provider>"), and webhookdays, one per tenant,
// provider and day (_id "<tenant>:<provider>:<day>").
type WebhookDiag struct {
	diag, days *mongo.Collection
}

var _ tenants.WebhookDiagRepo = (*WebhookDiag)(nil)

type webhookDiagDoc struct {
	ID               string    `bson:"_id"`
	TenantID         string    `bson:"tenantId"`
	Provider         string    `bson:"provider"`
	LastDelivery     time.Time `bson:"lastDeliveryAt,omitempty"`
	LastEvents       int       `bson:"lastEvents"`
	LastUnsubscribed int       `bson:"lastUnsubscribed"`
	LastRefusal      time.Time `bson:"lastRefusalAt,omitempty"`
	LastReason       string    `bson:"lastReason,omitempty"`
}

type webhookDayDoc struct {
	TenantID string `bson:"tenantId"`
	Provider string `bson:"provider"`
	Day      string `bson:"day"`
	Accepted int    `bson:"accepted"`
	Refused  int    `bson:"refused"`
}

// Add merges deltas. The last delivery and refusal are replaced only by later ones (a filter
// on the stored time, so instances writing at once keep the latest); the counts are $inc.
func (r *WebhookDiag) Add(ctx context.Context, deltas []tenants.WebhookDelta, keepFrom string) error {
	for _, d := range deltas {
		id := d.TenantID + ":" + d.Provider
		if !d.LastDelivery.IsZero() {
			if err := r.setLater(ctx, id, d, "lastDeliveryAt", d.LastDelivery, bson.D{{Key: "lastDeliveryAt", Value: d.LastDelivery},
				{Key: "lastEvents", Value: d.LastEvents}, {Key: "lastUnsubscribed", Value: d.LastUnsubscribed}}); err != nil {
				return err
			}
		}
		if !d.LastRefusal.IsZero() {
			if err := r.setLater(ctx, id, d, "lastRefusalAt", d.LastRefusal, bson.D{{Key: "lastRefusalAt", Value: d.LastRefusal},
				{Key: "lastReason", Value: d.LastReason}}); err != nil {
				return err
			}
		}
		_, err := r.days.UpdateOne(ctx, bson.D{{Key: "_id", Value: id + ":" + d.Day}, {Key: "tenantId", Value: d.TenantID}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "accepted", Value: d.Accepted}, {Key: "refused", Value: d.Refused}}},
				{Key: "$set", Value: bson.D{{Key: "provider", Value: d.Provider}, {Key: "day", Value: d.Day}}}},
			options.UpdateOne().SetUpsert(true))
		if err != nil {
			return translate("webhook diagnostics", err)
		}
		_, err = r.days.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: d.TenantID}, {Key: "provider", Value: d.Provider},
			{Key: "day", Value: bson.D{{Key: "$lt", Value: keepFrom}}}})
		if err != nil {
			return translate("webhook diagnostics", err)
		}
	}
	return nil
}

// setLater sets fields on the document id when its field `at` is missing or earlier than t.
func (r *WebhookDiag) setLater(ctx context.Context, id string, d tenants.WebhookDelta, at string, t time.Time, fields bson.D) error {
	if _, err := r.diag.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$setOnInsert", Value: bson.D{{Key: "tenantId", Value: d.TenantID}, {Key: "provider", Value: d.Provider}}}},
		options.UpdateOne().SetUpsert(true)); err != nil && !mongo.IsDuplicateKeyError(err) {
		return translate("webhook diagnostics", err)
	}
	_, err := r.diag.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "$or", Value: bson.A{
		bson.D{{Key: at, Value: bson.D{{Key: "$exists", Value: false}}}}, bson.D{{Key: at, Value: bson.D{{Key: "$lt", Value: t}}}}}}},
		bson.D{{Key: "$set", Value: fields}})
	return translate("webhook diagnostics", err)
}

// Stats returns the tenant's diagnostics per provider.
func (r *WebhookDiag) Stats(ctx context.Context, tenantID, from string) ([]tenants.WebhookStats, error) {
	var out []tenants.WebhookStats
	err := eachDoc(ctx, r.diag, "webhook diagnostics", bson.D{{Key: "tenantId", Value: tenantID}}, options.Find().SetSort(bson.D{asc("provider")}),
		func(d webhookDiagDoc) error {
			out = append(out, tenants.WebhookStats{TenantID: tenantID, Provider: d.Provider, LastDelivery: d.LastDelivery,
				LastEvents: d.LastEvents, LastUnsubscribed: d.LastUnsubscribed, LastRefusal: d.LastRefusal, LastReason: d.LastReason})
			return nil
		})
	if err != nil {
		return nil, err
	}
	for i := range out {
		err := eachDoc(ctx, r.days, "webhook diagnostics", bson.D{{Key: "tenantId", Value: tenantID}, {Key: "provider", Value: out[i].Provider},
			{Key: "day", Value: bson.D{{Key: "$gte", Value: from}}}}, options.Find().SetSort(bson.D{desc("day")}),
			func(d webhookDayDoc) error {
				out[i].Days = append(out[i].Days, tenants.WebhookDay{Day: d.Day, Accepted: d.Accepted, Refused: d.Refused})
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
