package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Erasures holds one marker per anonymised record. Inserting it after the record is stripped
// is what counts the record: concurrent identical erasures both strip (idempotent) but only
// one marker insert succeeds, so no record is counted twice.
type Erasures struct{ c *mongo.Collection }

var _ tenants.ErasureMarks = (*Erasures)(nil)

type erasureDoc struct {
	ID       string    `bson:"_id"`
	TenantID string    `bson:"tenantId"`
	At       time.Time `bson:"at"`
}

// MarkMany records that the tenant's records were anonymised, in one insert; first[i] is
// false where record i was marked already.
func (r *Erasures) MarkMany(ctx context.Context, tenantID string, recordIDs []string, now time.Time) ([]bool, error) {
	first := make([]bool, len(recordIDs))
	if len(recordIDs) == 0 {
		return first, nil
	}
	docs := make([]any, len(recordIDs))
	for i, id := range recordIDs {
		docs[i] = erasureDoc{ID: id, TenantID: tenantID, At: now}
		first[i] = true
	}
	_, err := r.c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return first, nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		return nil, translate("mark erasures", err)
	}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 || we.Index < 0 || we.Index >= len(first) {
			return nil, translate("mark erasures", err)
		}
		first[we.Index] = false
	}
	return first, nil
}
