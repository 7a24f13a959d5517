package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// bulkEvery is how often the bulk erasure job looks for approved and expired requests.
const bulkEvery = time.Second

// bulkLoop runs the approved bulk erasures and expires the undecided ones until ctx ends.
func bulkLoop(ctx context.Context, svc *ops.Service, lease *tenants.Lease, log *slog.Logger) {
	t := time.NewTicker(bulkEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !lease.Held() {
			continue // another instance runs it
		}
		if err := svc.RunBulk(ctx); err != nil && ctx.Err() == nil {
			log.Warn("bulk erasure job", "err", err)
		}
	}
}
