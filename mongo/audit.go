package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Audit is the append-only audit log. One append is one document holding its entries (a
// batch of accepted submissions appends hundreds at once: one write instead of hundreds);
// reads unwind them. Document ids are ObjectIds in hex, time-ordered.
type Audit struct{ c *mongo.Collection }

var _ tenants.AuditLog = (*Audit)(nil)

type auditDoc struct {
	ID        string               `bson:"_id"`
	TenantIDs []string             `bson:"tenantIds"`
	Entries   []tenants.AuditEntry `bson:"entries"`
}

// NewAuditID returns a fresh time-ordered id.
func NewAuditID() string { return bson.NewObjectID().Hex() }

// Append stores entries in one document. A single entry with an id of its own (a job that may
// repeat itself) is stored under that id, and appending it again does nothing.
func (r *Audit) Append(ctx context.Context, entries ...tenants.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	d := auditDoc{ID: NewAuditID(), Entries: entries}
	if len(entries) == 1 && entries[0].ID != "" {
		d.ID = entries[0].ID
	}
	seen := map[string]bool{}
	for i := range d.Entries {
		if d.Entries[i].ID == "" {
			d.Entries[i].ID = d.ID
			if len(entries) > 1 {
				d.Entries[i].ID = d.ID + "-" + itoa(i)
			}
		}
		if t := d.Entries[i].TenantID; !seen[t] {
			seen[t] = true
			d.TenantIDs = append(d.TenantIDs, t)
		}
	}
	_, err := r.c.InsertOne(ctx, d)
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	return translate("append audit", err)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// List returns the tenant's entries matching f, newest first; tenantID "" lists every
// tenant's (platform admin).
func (r *Audit) List(ctx context.Context, tenantID string, f tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	match := bson.D{}
	if tenantID != "" {
		match = append(match, bson.E{Key: "entries.tenantId", Value: tenantID})
	}
	if f.Action != "" {
		match = append(match, bson.E{Key: "entries.action", Value: f.Action})
	}
	if f.Actor != "" {
		match = append(match, bson.E{Key: "entries.actor", Value: f.Actor})
	}
	tr := bson.D{}
	if !f.From.IsZero() {
		tr = append(tr, bson.E{Key: "$gte", Value: f.From})
	}
	if !f.To.IsZero() {
		tr = append(tr, bson.E{Key: "$lt", Value: f.To})
	}
	if len(tr) > 0 {
		match = append(match, bson.E{Key: "entries.time", Value: tr})
	}
	pre := bson.D{}
	if tenantID != "" {
		pre = bson.D{{Key: "tenantIds", Value: tenantID}}
	}
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: pre}},
		{{Key: "$unwind", Value: "$entries"}},
		{{Key: "$match", Value: match}},
		{{Key: "$sort", Value: bson.D{{Key: "entries.time", Value: -1}, {Key: "entries._id", Value: -1}}}},
	}
	if f.Skip > 0 {
		pipeline = append(pipeline, bson.D{{Key: "$skip", Value: f.Skip}})
	}
	if f.Limit > 0 {
		pipeline = append(pipeline, bson.D{{Key: "$limit", Value: f.Limit}})
	}
	cur, err := r.c.Aggregate(ctx, pipeline, options.Aggregate())
	if err != nil {
		return nil, translate("list audit", err)
	}
	var rows []struct {
		E tenants.AuditEntry `bson:"entries"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, translate("list audit", err)
	}
	out := make([]tenants.AuditEntry, len(rows))
	for i := range rows {
		out[i] = rows[i].E
	}
	return out, nil
}
