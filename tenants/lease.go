package tenants

import (
	"context"
	"sync/atomic"
	"time"
)

// LeaseRepo keeps the leases of the background jobs that should run once per cluster
// (expiry, retention, bulk erasure, outbox dispatch, the daily audit verification) when
// several instances share one database.
type LeaseRepo interface {
	// Hold takes the lease name for owner when it is free or expired, or renews it when owner
	// holds it, for ttl from now; held reports whether owner holds it now.
	Hold(ctx context.Context, name, owner string, ttl time.Duration) (held bool, err error)
}

// Lease is one job's lease as one instance sees it. Run keeps it: taken when free, renewed
// every ttl/3 while held, so that an instance that stops loses it within ttl and another takes
// it over. A job asks Held before each pass. Without a repo (one instance: the embedded
// store) it is always held. The jobs stay safe without it (each write is idempotent, each
// expiry counted where its entry is added); the lease keeps two instances from doing the
// same work twice.
type Lease struct {
	repo  LeaseRepo
	name  string
	owner string
	ttl   time.Duration
	held  atomic.Bool
	// onError hears of a failed renewal; the lease then counts as not held.
	onError func(error)
}

// NewLease returns the lease name of owner (this instance) in repo.
func NewLease(repo LeaseRepo, name, owner string, ttl time.Duration, onError func(error)) *Lease {
	l := &Lease{repo: repo, name: name, owner: owner, ttl: ttl, onError: onError}
	if repo == nil {
		l.held.Store(true)
	}
	return l
}

// Held reports whether this instance holds the lease; with a repo, only after Run took it.
func (l *Lease) Held() bool { return l.held.Load() }

// Run takes and renews the lease until ctx ends.
func (l *Lease) Run(ctx context.Context) {
	if l.repo == nil {
		return
	}
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		l.renew(ctx)
		select {
		case <-ctx.Done():
			l.held.Store(false)
			return
		case <-t.C:
		}
	}
}

// renew takes or renews the lease once; a renewal that fails counts as losing it.
func (l *Lease) renew(ctx context.Context) {
	c, cancel := context.WithTimeout(ctx, l.ttl/3)
	defer cancel()
	held, err := l.repo.Hold(c, l.name, l.owner, l.ttl)
	if err != nil && ctx.Err() == nil && l.onError != nil {
		l.onError(err)
	}
	l.held.Store(held && err == nil)
}

// Renew takes or renews the lease now and reports whether it is held (tests, the CLI).
func (l *Lease) Renew(ctx context.Context) bool {
	if l.repo == nil {
		return true
	}
	l.renew(ctx)
	return l.Held()
}
