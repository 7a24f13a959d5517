package admin

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// chainStatus is the last verification of the user's tenant's chain; a platform admin who
// chose no tenant sees them summed: whole only if every chain was, up to the earliest.
func (h *handler) chainStatus(ctx context.Context, s *session) (web.ChainStatus, error) {
	if h.Store.Chains == nil {
		return web.ChainStatus{}, nil
	}
	var vs []tenants.ChainVerification
	if isPlatformAdmin(s) && s.TenantID == "" {
		var err error
		if vs, err = h.Store.Chains.Verifications(ctx); err != nil {
			return web.ChainStatus{}, err
		}
	} else {
		v, err := h.Store.Chains.LastVerification(ctx, s.TenantID)
		switch {
		case errors.Is(err, tenants.ErrNotFound):
		case err != nil:
			return web.ChainStatus{}, err
		default:
			vs = append(vs, v)
		}
	}
	c := web.ChainStatus{Verified: len(vs) > 0, OK: true, Tenants: len(vs)}
	for i, v := range vs {
		if i == 0 || v.VerifiedAt.Before(c.VerifiedAt) {
			c.VerifiedAt = v.VerifiedAt
		}
		if !v.UpTo.IsZero() && v.UpTo.Unix() > 0 && (c.UpTo.IsZero() || v.UpTo.Before(c.UpTo)) {
			c.UpTo = v.UpTo
		}
		if !v.OK && c.OK {
			c.OK, c.BrokenID = false, v.BrokenID
		}
	}
	return c, nil
}
