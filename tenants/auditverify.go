package tenants

import (
	"context"
	"errors"
	"slices"
	"time"
)

// ChainReport sums up a verification of the audit chains (consentforms audit verify).
type ChainReport struct {
	Tenants int   `json:"tenants"`
	Entries int64 `json:"entries"`
	OK      bool  `json:"ok"`
	// TenantID and BrokenID name the first tenant whose chain is broken and where.
	TenantID string `json:"tenant,omitempty"`
	BrokenID string `json:"brokenId,omitempty"`
}

// VerifyChains walks the chain of the tenant only, or of every tenant when only is empty
// (those whose chains were verified before included, so a chain emptied entirely is still
// found), and saves each tenant's result.
func VerifyChains(ctx context.Context, r AuditChainRepo, only string, now time.Time) (ChainReport, error) {
	ids := []string{only}
	if only == "" {
		var err error
		if ids, err = r.ChainTenants(ctx); err != nil {
			return ChainReport{}, err
		}
		prev, err := r.Verifications(ctx)
		if err != nil {
			return ChainReport{}, err
		}
		for _, v := range prev {
			if !slices.Contains(ids, v.TenantID) {
				ids = append(ids, v.TenantID)
			}
		}
		slices.Sort(ids)
	}
	rep := ChainReport{OK: true}
	for _, id := range ids {
		v, err := verifyChain(ctx, r, id, now)
		if err != nil {
			return rep, err
		}
		rep.Tenants++
		rep.Entries += v.Entries
		if !v.OK && rep.OK {
			rep.OK, rep.TenantID, rep.BrokenID = false, id, v.BrokenID
		}
	}
	return rep, nil
}

func verifyChain(ctx context.Context, r AuditChainRepo, tenantID string, now time.Time) (ChainVerification, error) {
	var prev *ChainVerification
	switch p, err := r.LastVerification(ctx, tenantID); {
	case err == nil:
		prev = &p
	case !errors.Is(err, ErrNotFound):
		return ChainVerification{}, err
	}
	var w ChainWalk
	if prev != nil && prev.OK {
		w.Expect = prev.Head
	}
	errBroken := errors.New("broken")
	err := r.EachChained(ctx, tenantID, func(e AuditEntry) error {
		if !w.Next(e) {
			return errBroken
		}
		return nil
	})
	if err != nil && !errors.Is(err, errBroken) {
		return ChainVerification{}, err
	}
	v := w.Result(tenantID, now, prev)
	return v, r.SaveVerification(ctx, v)
}
