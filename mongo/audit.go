package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Audit is the append-only audit log. Ids are ObjectIds in hex: time-ordered, unique.
type Audit struct{ c *mongo.Collection }

var _ tenants.AuditLog = (*Audit)(nil)

// NewAuditID returns a fresh time-ordered entry id.
func NewAuditID() string { return bson.NewObjectID().Hex() }

// Append stores entries, giving an id to those without one. An entry whose id exists
// already (a job repeating itself) is skipped silently: the log is append-only.
func (r *Audit) Append(ctx context.Context, entries ...tenants.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	docs := make([]any, len(entries))
	for i := range entries {
		if entries[i].ID == "" {
			entries[i].ID = NewAuditID()
		}
		docs[i] = entries[i]
	}
	_, err := r.c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil && mongo.IsDuplicateKeyError(err) {
		return nil
	}
	return translate("append audit", err)
}

// List returns the tenant's entries matching f, newest first; tenantID "" lists every
// tenant's (platform admin).
func (r *Audit) List(ctx context.Context, tenantID string, f tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	filter := bson.D{}
	if tenantID != "" {
		filter = append(filter, bson.E{Key: "tenantId", Value: tenantID})
	}
	if f.Action != "" {
		filter = append(filter, bson.E{Key: "action", Value: f.Action})
	}
	if f.Actor != "" {
		filter = append(filter, bson.E{Key: "actor", Value: f.Actor})
	}
	tr := bson.D{}
	if !f.From.IsZero() {
		tr = append(tr, bson.E{Key: "$gte", Value: f.From})
	}
	if !f.To.IsZero() {
		tr = append(tr, bson.E{Key: "$lt", Value: f.To})
	}
	if len(tr) > 0 {
		filter = append(filter, bson.E{Key: "time", Value: tr})
	}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetSkip(f.Skip)
	if f.Limit > 0 {
		opts.SetLimit(f.Limit)
	}
	cur, err := r.c.Find(ctx, filter, opts)
	if err != nil {
		return nil, translate("list audit", err)
	}
	var out []tenants.AuditEntry
	return out, translate("list audit", cur.All(ctx, &out))
}
