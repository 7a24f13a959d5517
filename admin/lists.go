package admin

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// listTotalBound is how far a list's total is counted: beyond it the list reads "1,000+", so
// that a total costs at most that many index entries whatever the filter.
const listTotalBound = 1000

// listTotal counts the records of kind that filter lists, up to listTotalBound.
func (h *handler) listTotal(ctx context.Context, tenantID string, kind tenants.Kind, filter tenants.Page) (web.ListTotal, error) {
	n, err := h.Store.Records.CountUpTo(ctx, tenantID, kind, filter, listTotalBound+1)
	if n > listTotalBound {
		return web.ListTotal{N: listTotalBound, More: true}, err
	}
	return web.ListTotal{N: int(n)}, err
}
