package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Outbox holds the outgoing webhook endpoints, the outbox and the deliveries. MongoDB has no
// transaction here: the writer writes a change's events before it answers, in the order that
// docs/WEBHOOKS.md §Guarantees explains, so that an acknowledged change never loses its event.
type Outbox struct {
	endpoints, events, deliveries *mongo.Collection
}

var _ tenants.OutboxRepo = (*Outbox)(nil)

// insertEvents writes the events that a live endpoint of their tenant wants (WantedEvents);
// one whose id exists is not written again.
func (r *Outbox) insertEvents(ctx context.Context, events []tenants.OutboxEvent) error {
	events, err := tenants.WantedEvents(events, func(tenantID string) ([]tenants.Endpoint, error) {
		return r.Endpoints(ctx, tenantID)
	})
	if err != nil || len(events) == 0 {
		return err
	}
	docs := make([]any, len(events))
	for i, e := range events {
		docs[i] = eventDoc(e)
	}
	_, err = r.events.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	byIndex, ok := writeErrors(err)
	if err != nil && !ok {
		return translate("insert outbox events", err)
	}
	for _, code := range byIndex {
		if code != codeDuplicateKey {
			return writeError("insert outbox event", code)
		}
	}
	return nil
}

// InsertEndpoint stores a new endpoint.
func (r *Outbox) InsertEndpoint(ctx context.Context, e tenants.Endpoint) error {
	_, err := r.endpoints.InsertOne(ctx, endpointDoc(e))
	return translate("insert webhook endpoint", err)
}

// Endpoint returns the tenant's endpoint with id.
func (r *Outbox) Endpoint(ctx context.Context, tenantID, id string) (tenants.Endpoint, error) {
	var d endpointDoc
	err := r.endpoints.FindOne(ctx, ofTenant(tenantID, id)).Decode(&d)
	return tenants.Endpoint(d), translate("get webhook endpoint", err)
}

// Endpoints returns the tenant's endpoints, oldest first.
func (r *Outbox) Endpoints(ctx context.Context, tenantID string) ([]tenants.Endpoint, error) {
	docs, err := findAll[endpointDoc](ctx, r.endpoints, "list webhook endpoints", bson.D{{Key: "tenantId", Value: tenantID}},
		options.Find().SetSort(bson.D{asc("createdAt"), asc("_id")}))
	return convertDocs(docs, err, func(d endpointDoc) tenants.Endpoint { return tenants.Endpoint(d) })
}

// DeleteEndpoint removes the endpoint, then its delivery log.
func (r *Outbox) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	res, err := r.endpoints.DeleteOne(ctx, ofTenant(tenantID, id))
	if err != nil {
		return translate("delete webhook endpoint", err)
	}
	if res.DeletedCount == 0 {
		return tenants.ErrNotFound
	}
	_, err = r.deliveries.DeleteMany(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "endpointId", Value: id}})
	return translate("delete webhook deliveries", err)
}

// SetFailing implements tenants.OutboxRepo.
func (r *Outbox) SetFailing(ctx context.Context, tenantID, id string, since *time.Time) error {
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: "failingSince", Value: ""}}}}
	if since != nil {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "failingSince", Value: *since}}}}
	}
	return updateOne(ctx, r.endpoints, "set webhook endpoint failing", ofTenant(tenantID, id), update)
}

// Unfanned implements tenants.OutboxRepo.
func (r *Outbox) Unfanned(ctx context.Context, limit int) ([]tenants.OutboxEvent, error) {
	docs, err := findAll[eventDoc](ctx, r.events, "unfanned events", bson.D{},
		options.Find().SetSort(bson.D{asc("time"), asc("_id")}).SetLimit(int64(limit)))
	return convertDocs(docs, err, func(d eventDoc) tenants.OutboxEvent { return tenants.OutboxEvent(d) })
}

// Fan implements tenants.OutboxRepo: the deliveries first, then the events leave the outbox,
// so that a stop in between repeats the fan-out, which writes nothing twice. Both are one
// request per batch; the deletes name each event's tenant, the shard key.
func (r *Outbox) Fan(ctx context.Context, fanned []tenants.Fanned) error {
	var docs []any
	for _, f := range fanned {
		for _, d := range f.Deliveries {
			docs = append(docs, toDeliveryDoc(d))
		}
	}
	if len(docs) > 0 {
		_, err := r.deliveries.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		byIndex, ok := writeErrors(err)
		if err != nil && !ok {
			return translate("insert webhook deliveries", err)
		}
		for _, code := range byIndex {
			if code != codeDuplicateKey {
				return writeError("insert webhook delivery", code)
			}
		}
	}
	if len(fanned) == 0 {
		return nil
	}
	deletes := make([]mongo.WriteModel, len(fanned))
	for i, f := range fanned {
		deletes[i] = mongo.NewDeleteOneModel().SetFilter(ofTenant(f.Event.TenantID, f.Event.ID))
	}
	_, err := r.events.BulkWrite(ctx, deletes, options.BulkWrite().SetOrdered(false))
	return translate("remove fanned events", err)
}

// PruneDeliveries implements tenants.OutboxRepo.
func (r *Outbox) PruneDeliveries(ctx context.Context, before time.Time) (int64, error) {
	res, err := r.deliveries.DeleteMany(ctx, bson.D{{Key: "createdAt", Value: bson.D{{Key: "$lt", Value: before}}},
		{Key: "status", Value: bson.D{{Key: "$ne", Value: tenants.DeliveryPending}}}})
	if err != nil {
		return 0, translate("prune webhook deliveries", err)
	}
	return res.DeletedCount, nil
}

// Due implements tenants.OutboxRepo.
func (r *Outbox) Due(ctx context.Context, now time.Time, limit int, skip []string) ([]tenants.Delivery, error) {
	filter := bson.D{{Key: "status", Value: tenants.DeliveryPending}, {Key: "nextAt", Value: bson.D{{Key: "$lte", Value: now}}}}
	if len(skip) > 0 {
		filter = append(filter, bson.E{Key: "endpointId", Value: bson.D{{Key: "$nin", Value: skip}}})
	}
	return deliveries(ctx, r.deliveries, "due deliveries", filter,
		options.Find().SetSort(bson.D{asc("status"), asc("nextAt")}).SetLimit(int64(limit)))
}

// Update implements tenants.OutboxRepo.
func (r *Outbox) Update(ctx context.Context, d tenants.Delivery) error {
	set := bson.D{{Key: "status", Value: d.Status}, {Key: "attempts", Value: d.Attempts}, {Key: "nextAt", Value: d.NextAt},
		{Key: "lastAt", Value: d.LastAt}, {Key: "lastResult", Value: d.LastResult}}
	return updateOne(ctx, r.deliveries, "update webhook delivery",
		bson.D{{Key: "tenantId", Value: d.TenantID}, {Key: "_id", Value: d.EndpointID + "/" + d.EventID}}, bson.D{{Key: "$set", Value: set}})
}

// Deliveries implements tenants.OutboxRepo.
func (r *Outbox) Deliveries(ctx context.Context, tenantID, endpointID string, limit int) ([]tenants.Delivery, error) {
	return deliveries(ctx, r.deliveries, "list webhook deliveries",
		bson.D{{Key: "tenantId", Value: tenantID}, {Key: "endpointId", Value: endpointID}},
		options.Find().SetSort(bson.D{desc("createdAt"), desc("_id")}).SetLimit(int64(limit)))
}

func deliveries(ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]tenants.Delivery, error) {
	docs, err := findAll[deliveryDoc](ctx, c, op, filter, opts)
	return convertDocs(docs, err, deliveryDoc.delivery)
}
