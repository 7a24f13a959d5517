package mongo

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// People is the per-person lookup: one document per tenant and keyed hash of a normalised
// e-mail or phone, listing the records that carry it, so that erasure, unsubscribe and
// consent reads find a person's records by _id instead of scanning.
type People struct{ c *mongo.Collection }

var _ tenants.PersonStore = (*People)(nil)

type personDoc struct {
	ID       string   `bson:"_id"`
	TenantID string   `bson:"tenantId"`
	Refs     []string `bson:"refs"`
}

func personID(tenantID, hash string) string { return tenantID + ":" + hash }

// AddRefs records references in one bulk write. It runs before the records are inserted, so
// a crash in between leaves at most a reference to a record that does not exist.
func (r *People) AddRefs(ctx context.Context, refs []tenants.PersonRef) error {
	if len(refs) == 0 {
		return nil
	}
	grouped := map[string][]string{}
	tenantOf := map[string]string{}
	var order []string
	for _, p := range refs {
		id := personID(p.TenantID, p.Hash)
		if _, ok := grouped[id]; !ok {
			order = append(order, id)
			tenantOf[id] = p.TenantID
		}
		grouped[id] = append(grouped[id], tenants.Ref(p.Kind, p.RecordID))
	}
	// Most submissions come from persons not seen before: insert their documents in one
	// cheap bulk insert, and add references with an update only where one exists already.
	docs := make([]any, len(order))
	for i, id := range order {
		docs[i] = personDoc{ID: id, TenantID: tenantOf[id], Refs: grouped[id]}
	}
	_, err := r.c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		return translate("add person refs", err)
	}
	var models []mongo.WriteModel
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 || we.Index < 0 || we.Index >= len(order) {
			return translate("add person refs", err)
		}
		id := order[we.Index]
		models = append(models, mongo.NewUpdateOneModel().SetFilter(byID(id)).SetUpsert(true).SetUpdate(bson.D{
			{Key: "$setOnInsert", Value: bson.D{{Key: "tenantId", Value: tenantOf[id]}}},
			{Key: "$addToSet", Value: bson.D{{Key: "refs", Value: bson.D{{Key: "$each", Value: grouped[id]}}}}},
		}))
	}
	_, err = r.c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	return translate("add person refs", err)
}

// Refs returns the references of the tenant's person with keyed hash, none if unknown.
func (r *People) Refs(ctx context.Context, tenantID, hash string) ([]string, error) {
	var d personDoc
	err := r.c.FindOne(ctx, byID(personID(tenantID, hash))).Decode(&d)
	if err = translate("get person", err); err == tenants.ErrNotFound {
		return nil, nil
	}
	return d.Refs, err
}

// Forget removes handled references from the tenant's person and deletes the document once
// it lists none. On MongoDB (conditional) that is an atomic $pull and a conditional delete.
// The embedded store silently ignores $pull with $in and answers only _id filters without a
// scan, so there the new list is computed here and written by _id: the caller must serialise
// Forget with AddRefs (the single writer does).
func (r *People) Forget(ctx context.Context, tenantID, hash string, refs []string, conditional bool) error {
	id := personID(tenantID, hash)
	if conditional {
		if len(refs) > 0 {
			_, err := r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$pull", Value: bson.D{{Key: "refs", Value: bson.D{{Key: "$in", Value: refs}}}}}})
			if err != nil {
				return translate("forget person refs", err)
			}
		}
		_, err := r.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "refs", Value: bson.D{{Key: "$size", Value: 0}}}})
		return translate("delete person", err)
	}
	current, err := r.Refs(ctx, tenantID, hash)
	if err != nil {
		return err
	}
	handled := map[string]bool{}
	for _, ref := range refs {
		handled[ref] = true
	}
	left := []string{}
	for _, ref := range current {
		if !handled[ref] {
			left = append(left, ref)
		}
	}
	if len(left) == 0 {
		_, err = r.c.DeleteOne(ctx, byID(id))
		return translate("delete person", err)
	}
	if len(left) == len(current) {
		return nil
	}
	_, err = r.c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "refs", Value: left}}}})
	return translate("forget person refs", err)
}
