package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// bulkBatch is how many keys one erasure of a running bulk erasure request takes: 100
// identifiers, each with its belonging and its mention key.
const bulkBatch = 200

// errBulkProgressed: another instance ran the step this one was running.
var errBulkProgressed = errors.New("another server ran this step")

// RunBulk expires the bulk erasure requests left pending too long (ops.BulkTTL) and runs the
// approved ones to the end, one batch of identifiers per erasure (ops.Persons.EraseKeys),
// pausing after each for as long as it took so that intake keeps its pace.
func (p *Passes) RunBulk(ctx context.Context) error {
	s := p.Ops.Bulk
	expired, err := s.Bulk.ExpiredBulk(ctx, s.Now())
	if err != nil {
		return err
	}
	for _, b := range expired {
		if err := s.ExpireBulk(ctx, b); err != nil {
			return err
		}
	}
	runnable, err := s.Bulk.RunnableBulk(ctx)
	if err != nil {
		return err
	}
	for _, b := range runnable {
		if err := p.runBulk(ctx, b); err != nil && !errors.Is(err, errBulkProgressed) {
			return err
		}
	}
	return nil
}

func (p *Passes) runBulk(ctx context.Context, b tenants.BulkErasure) error {
	s := p.Ops.Bulk
	erased := tenants.CountsFrom(b.Erased)
	mentioned := b.Erased[ops.RemovedMentionsKey]
	for b.Done < len(b.Keys) {
		started := time.Now()
		end := min(b.Done+bulkBatch, len(b.Keys))
		own, mentions := ops.SplitBulkKeys(b.Keys[b.Done:end])
		c, err := s.Persons.EraseKeys(ctx, b.TenantID, tenants.ActorSystem, "", "", "bulk erasure "+b.ID, own, mentions)
		if err != nil {
			return err
		}
		erased = erased.Plus(c.Counts)
		mentioned += c.RemovedMentions
		if err := s.Bulk.ProgressBulk(ctx, b.TenantID, b.ID, end, ops.WithMentions(erased, mentioned)); err != nil {
			if errors.Is(err, tenants.ErrConflict) {
				return errBulkProgressed
			}
			return err
		}
		b.Done = end
		if err := pause(ctx, time.Since(started)); err != nil {
			return err
		}
	}
	if err := s.Bulk.FinishBulk(ctx, b.TenantID, b.ID, tenants.BulkDone, s.Now().UTC()); err != nil {
		return err
	}
	return s.AuditBulk(ctx, b, tenants.ActorSystem, tenants.ActionBulkCompleted, ops.WithMentions(erased, mentioned), "")
}
