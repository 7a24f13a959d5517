package mongo

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
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

// Mark records that the tenant's record was anonymised; false when it was already marked.
func (r *Erasures) Mark(ctx context.Context, tenantID, recordID string, now time.Time) (bool, error) {
	_, err := r.c.InsertOne(ctx, erasureDoc{ID: recordID, TenantID: tenantID, At: now})
	switch err = translate("mark erasure", err); err {
	case nil:
		return true, nil
	case tenants.ErrConflict:
		return false, nil
	default:
		return false, err
	}
}
