package mongo

import (
	"time"

	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Texts is the consenttexts collection: the published notice versions of forms, append-only;
// a version's _id is its version id.
type Texts struct{ c *mongo.Collection }

var _ tenants.TextRepo = (*Texts)(nil)

// Insert stores a new version; ErrConflict for an id that exists.
func (r *Texts) Insert(ctx context.Context, t tenants.ConsentText) error {
	t.PublishedAt = t.PublishedAt.UTC().Truncate(time.Millisecond)
	_, err := r.c.InsertOne(ctx, t)
	return translate("insert consent text", err)
}

// Get returns the version id of the tenant's form.
func (r *Texts) Get(ctx context.Context, tenantID, formID, id string) (tenants.ConsentText, error) {
	var t tenants.ConsentText
	err := r.c.FindOne(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "formId", Value: formID}, {Key: "_id", Value: id}}).Decode(&t)
	t.PublishedAt = t.PublishedAt.UTC()
	return t, translate("get consent text", err)
}

// List returns the versions of the tenant's form in publication order.
func (r *Texts) List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	out, err := findAll[tenants.ConsentText](ctx, r.c, "list consent texts", ofForm(tenantID, formID),
		options.Find().SetSort(bson.D{asc("publishedAt"), asc("_id")}))
	for i := range out {
		out[i].PublishedAt = out[i].PublishedAt.UTC()
	}
	return out, err
}
