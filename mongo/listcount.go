package mongo

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// CountUpTo counts the records List would list under p's filters (its paging aside), stopping
// at most: a list's total costs at most most index entries, never the whole collection.
func (r *Records) CountUpTo(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page, most int64) (int64, error) {
	c, err := r.col(kind)
	if err != nil {
		return 0, err
	}
	filter, err := listFilter(tenantID, p)
	if err != nil {
		return 0, err
	}
	n, err := c.CountDocuments(ctx, filter, options.Count().SetLimit(most))
	return n, translate("count records", err)
}
