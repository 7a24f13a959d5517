package ops

import (
	"context"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// WebhookDiagnostics records inbound webhook deliveries per tenant and provider
// (docs/API.md §8.4). A delivery only updates a map in memory, under a mutex held for a few
// map operations; the diagnostics flush job (package jobs) writes what gathered to the store
// every few seconds (Flush), one row per tenant, provider and day however many deliveries
// came. So a flood of deliveries, refused or not, costs the store a bounded number of writes
// and the request path no store write.
// A crash loses at most the last few seconds of diagnostics, never data.
type WebhookDiagnostics struct {
	Repo tenants.WebhookDiagRepo
	Now  func() time.Time

	mu      sync.Mutex
	pending map[diagKey]*tenants.WebhookDelta

	// flushing is held by Flush for writing while it moves the pending deltas to the store, and
	// by Stats for reading while it reads the store and the pending deltas: a delta is then
	// counted once, in the store or in memory, never in neither (between Flush's take and its
	// write) nor in both. Deliveries take only mu, so a flush never holds up a request.
	flushing sync.RWMutex
}

type diagKey struct{ tenantID, provider, day string }

// Delivered records an accepted delivery of events provider events that revoked consents on
// unsubscribed records.
func (d *WebhookDiagnostics) Delivered(tenantID, provider string, events, unsubscribed int) {
	d.add(tenantID, provider, func(delta *tenants.WebhookDelta, now time.Time) {
		delta.LastDelivery, delta.LastEvents, delta.LastUnsubscribed = now, events, unsubscribed
		delta.Accepted++
	})
}

// Refused records a refused delivery and its reason (tenants.Refused…).
func (d *WebhookDiagnostics) Refused(tenantID, provider, reason string) {
	d.add(tenantID, provider, func(delta *tenants.WebhookDelta, now time.Time) {
		delta.LastRefusal, delta.LastReason = now, reason
		delta.Refused++
	})
}

func (d *WebhookDiagnostics) add(tenantID, provider string, fn func(*tenants.WebhookDelta, time.Time)) {
	if d == nil || tenantID == "" {
		return
	}
	now := d.Now()
	k := diagKey{tenantID, provider, now.UTC().Format(time.DateOnly)}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending == nil {
		d.pending = map[diagKey]*tenants.WebhookDelta{}
	}
	delta := d.pending[k]
	if delta == nil {
		delta = &tenants.WebhookDelta{TenantID: tenantID, Provider: provider, Day: k.day}
		d.pending[k] = delta
	}
	fn(delta, now)
}

// take empties the pending deltas and returns them.
func (d *WebhookDiagnostics) take() []tenants.WebhookDelta {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]tenants.WebhookDelta, 0, len(d.pending))
	for _, delta := range d.pending {
		out = append(out, *delta)
	}
	d.pending = nil
	return out
}

// keepFrom is the first day kept.
func (d *WebhookDiagnostics) keepFrom() string {
	return d.Now().UTC().AddDate(0, 0, -(tenants.WebhookDiagDays - 1)).Format(time.DateOnly)
}

// Flush writes the pending deltas to the store; on an error they are dropped (diagnostics,
// not data) and the error returned for the log.
func (d *WebhookDiagnostics) Flush(ctx context.Context) error {
	d.flushing.Lock()
	defer d.flushing.Unlock()
	return d.Repo.Add(ctx, d.take(), d.keepFrom())
}

// Stats returns the tenant's diagnostics per provider: the store's, with what this instance
// has not written yet added.
func (d *WebhookDiagnostics) Stats(ctx context.Context, tenantID string) ([]tenants.WebhookStats, error) {
	d.flushing.RLock()
	defer d.flushing.RUnlock()
	stats, err := d.Repo.Stats(ctx, tenantID, d.keepFrom())
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, delta := range d.pending {
		if delta.TenantID != tenantID {
			continue
		}
		i := 0
		for i < len(stats) && stats[i].Provider != delta.Provider {
			i++
		}
		if i == len(stats) {
			stats = append(stats, tenants.WebhookStats{TenantID: tenantID, Provider: delta.Provider})
		}
		stats[i].Merge(*delta)
	}
	return stats, nil
}
