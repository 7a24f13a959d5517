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
	prev, w, err := walkChain(ctx, r, tenantID)
	if err != nil {
		return ChainVerification{}, err
	}
	v := w.Result(tenantID, now, prev)
	return v, r.SaveVerification(ctx, v)
}

// walkChain walks the tenant's chain against its last verification (nil when none) and the
// breaks acknowledged.
func walkChain(ctx context.Context, r AuditChainRepo, tenantID string) (*ChainVerification, *ChainWalk, error) {
	var prev *ChainVerification
	switch p, err := r.LastVerification(ctx, tenantID); {
	case err == nil:
		prev = &p
	case !errors.Is(err, ErrNotFound):
		return nil, nil, err
	}
	acks, err := r.Acknowledgments(ctx, tenantID)
	if err != nil {
		return nil, nil, err
	}
	w := &ChainWalk{Acknowledged: acknowledged(acks)}
	if prev != nil && prev.OK {
		w.Expect = prev.Head
	}
	errBroken := errors.New("broken")
	err = r.EachChained(ctx, tenantID, func(e AuditEntry) error {
		if !w.Next(e) {
			return errBroken
		}
		return nil
	})
	if err != nil && !errors.Is(err, errBroken) {
		return nil, nil, err
	}
	return prev, w, nil
}

// ErrNotBroken refuses an acknowledgment of a break that the tenant's last verification does
// not report.
var ErrNotBroken = errors.New("the last verification does not report the chain broken at that entry")

// AcknowledgeBreak records that an operator has looked into the break of the tenant's chain
// that its last verification reports at entryID (consentforms audit acknowledge), and
// verifies the chain again. A reported break stays reported until then. The acknowledgment
// is itself an audit entry (audit.acknowledged, naming the entry, the place in the chain and
// the reason) in the same chain, so that it cannot be removed unnoticed; later walks pass
// over the break it names and check everything around it.
func AcknowledgeBreak(ctx context.Context, r AuditChainRepo, audit AuditRepo, actor, tenantID, entryID, reason string, now time.Time) (ChainReport, error) {
	prev, w, err := walkChain(ctx, r, tenantID)
	if err != nil {
		return ChainReport{}, err
	}
	if prev == nil || prev.OK || prev.BrokenID != entryID {
		return ChainReport{}, ErrNotBroken
	}
	ack := AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: ActionAuditAcknowledged,
		RecordIDs: []string{entryID}, Counts: map[string]int{AckPlace: int(w.place())}, Detail: reason}
	if err := audit.Append(ctx, ack); err != nil {
		return ChainReport{}, err
	}
	return VerifyChains(ctx, r, tenantID, now)
}
