package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Forms is the forms collection; a form's _id is tenants.FormKey of its tenant and form id,
// so that a form id is unique within its tenant.
type Forms struct{ c *mongo.Collection }

var _ tenants.FormRepo = (*Forms)(nil)

// Insert stores a new form; ErrConflict when the tenant has one with the same form id.
func (r *Forms) Insert(ctx context.Context, f tenants.Form) error {
	_, err := r.c.InsertOne(ctx, toFormDoc(f))
	return translate("insert form", err)
}

// Get returns the tenant's form with formID.
func (r *Forms) Get(ctx context.Context, tenantID, formID string) (tenants.Form, error) {
	var d formDoc
	err := r.c.FindOne(ctx, ofForm(tenantID, formID)).Decode(&d)
	return d.form(), translate("get form", err)
}

// Save replaces the tenant's form; ErrNotFound when it has none with that form id.
func (r *Forms) Save(ctx context.Context, f tenants.Form) error {
	res, err := r.c.ReplaceOne(ctx, ofForm(f.TenantID, f.FormID), toFormDoc(f))
	if err != nil {
		return translate("save form", err)
	}
	if res.MatchedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}

// List returns the tenant's forms by form id.
func (r *Forms) List(ctx context.Context, tenantID string) ([]tenants.Form, error) {
	docs, err := findAll[formDoc](ctx, r.c, "list forms", bson.D{{Key: "tenantId", Value: tenantID}},
		options.Find().SetSort(bson.D{asc("formId")}))
	return convertDocs(docs, err, formDoc.form)
}

func ofForm(tenantID, formID string) bson.D {
	return bson.D{{Key: "tenantId", Value: tenantID}, {Key: "formId", Value: formID}}
}
