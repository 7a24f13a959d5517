package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/batch"
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
	// outcomes batches the outcomes of delivery attempts (Update).
	outcomes *batch.Batcher[*outcome]
}

// A batch of delivery outcomes below minOutcomes waits up to outcomeLinger for more: they
// arrive one per attempt, and one bulk write (one round trip) then stores many. The
// dispatcher does not wait for an outcome to go on with the endpoint's next attempt.
const (
	minOutcomes   = 64
	outcomeLinger = 10 * time.Millisecond
)

// outcome is an Update waiting for its batch, and its result.
type outcome struct {
	d   tenants.Delivery
	err error
}

func newOutbox(db *mongo.Database) *Outbox {
	r := &Outbox{endpoints: db.Collection(colEndpoints), events: db.Collection(colOutbox), deliveries: db.Collection(colDeliveries)}
	r.outcomes = batch.NewLingering(maxBatch, minOutcomes, outcomeLinger, r.updateDeliveries)
	return r
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

// Update implements tenants.OutboxRepo: the outcome waits for its batch (updateDeliveries).
func (r *Outbox) Update(ctx context.Context, d tenants.Delivery) error {
	j := &outcome{d: d}
	if err := r.outcomes.Do(ctx, j); err != nil {
		return err
	}
	return j.err
}

// updateDeliveries writes a batch of outcomes in one unordered bulk write. Should it fail, or
// match fewer deliveries than it holds (one was deleted with its endpoint), each outcome is
// written on its own, so that an error or ErrNotFound reaches only the update it belongs to.
// Writing an outcome twice sets the same values.
func (r *Outbox) updateDeliveries(jobs []*outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if len(jobs) > 1 {
		models := make([]mongo.WriteModel, len(jobs))
		for i, j := range jobs {
			models[i] = mongo.NewUpdateOneModel().SetFilter(deliveryFilter(j.d)).SetUpdate(outcomeUpdate(j.d))
		}
		res, err := r.deliveries.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
		if err == nil && res.MatchedCount == int64(len(jobs)) {
			return
		}
	}
	for _, j := range jobs {
		j.err = updateOne(ctx, r.deliveries, "update webhook delivery", deliveryFilter(j.d), outcomeUpdate(j.d))
	}
}

func deliveryFilter(d tenants.Delivery) bson.D {
	return bson.D{{Key: "tenantId", Value: d.TenantID}, {Key: "_id", Value: d.EndpointID + "/" + d.EventID}}
}

func outcomeUpdate(d tenants.Delivery) bson.D {
	return bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: d.Status}, {Key: "attempts", Value: d.Attempts},
		{Key: "nextAt", Value: d.NextAt}, {Key: "lastAt", Value: d.LastAt}, {Key: "lastResult", Value: d.LastResult}}}}
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
