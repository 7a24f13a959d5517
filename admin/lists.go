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

// formNames maps the tenant's form ids to their names (forms without a name left out), so
// that a page shows names with the id in a tooltip.
func (h *handler) formNames(ctx context.Context, tenantID string) (map[string]string, error) {
	forms, err := h.Store.Forms.List(ctx, tenantID)
	names := make(map[string]string, len(forms))
	for _, f := range forms {
		if f.Name != "" {
			names[f.FormID] = f.Name
		}
	}
	return names, err
}
