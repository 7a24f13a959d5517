package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Texts is the consenttexts collection: the published notice versions of forms, append-only;
// a version's _id is its version id.
type Texts struct{ c *mongo.Collection }

var _ tenants.TextRepo = (*Texts)(nil)

// textDoc is a consent text version as stored.
type textDoc struct {
	ID          string    `bson:"_id"`
	TenantID    string    `bson:"tenantId"`
	FormID      string    `bson:"formId"`
	Consent     string    `bson:"consent"`
	Language    string    `bson:"language"`
	Text        string    `bson:"text"`
	Hash        string    `bson:"hash"`
	PublishedAt time.Time `bson:"publishedAt"`
}

func toTextDoc(t tenants.ConsentText) textDoc {
	return textDoc{ID: t.ID, TenantID: t.TenantID, FormID: t.FormID, Consent: string(t.Consent), Language: t.Language,
		Text: t.Text, Hash: t.Hash, PublishedAt: t.PublishedAt.UTC().Truncate(time.Millisecond)}
}

func (d textDoc) text() tenants.ConsentText {
	return tenants.ConsentText{ID: d.ID, TenantID: d.TenantID, FormID: d.FormID, Consent: tenants.ConsentName(d.Consent),
		Language: d.Language, Text: d.Text, Hash: d.Hash, PublishedAt: d.PublishedAt.UTC()}
}

// Insert stores a new version; ErrConflict for an id that exists.
func (r *Texts) Insert(ctx context.Context, t tenants.ConsentText) error {
	_, err := r.c.InsertOne(ctx, toTextDoc(t))
	return translate("insert consent text", err)
}

// Get returns the version id of the tenant's form.
func (r *Texts) Get(ctx context.Context, tenantID, formID, id string) (tenants.ConsentText, error) {
	var d textDoc
	err := r.c.FindOne(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "formId", Value: formID}, {Key: "_id", Value: id}}).Decode(&d)
	return d.text(), translate("get consent text", err)
}

// List returns the versions of the tenant's form in publication order.
func (r *Texts) List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	docs, err := findAll[textDoc](ctx, r.c, "list consent texts", ofForm(tenantID, formID),
		options.Find().SetSort(bson.D{asc("publishedAt"), asc("_id")}))
	out := make([]tenants.ConsentText, len(docs))
	for i, d := range docs {
		out[i] = d.text()
	}
	return out, err
}
