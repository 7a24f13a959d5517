// Package cache decorates the lookups on every request's path (API keys, tenants, forms)
// with expiring LRU caches. Entries live at most TTL, so a change made on another instance
// (a revoked key, a closed form) takes effect everywhere within TTL; this instance purges
// at once.
package cache

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// entry caches a value or a miss.
type entry[V any] struct {
	v   V
	err error
}

// lookup is one read-through cache with separate lifetimes for hits and misses.
type lookup[V any] struct {
	hits   *expirable.LRU[string, entry[V]]
	misses *expirable.LRU[string, entry[V]]
}

func newLookup[V any](size int, ttl, missTTL time.Duration) *lookup[V] {
	return &lookup[V]{hits: expirable.NewLRU[string, entry[V]](size, nil, ttl), misses: expirable.NewLRU[string, entry[V]](size, nil, missTTL)}
}

func (l *lookup[V]) get(key string, load func() (V, error)) (V, error) {
	if e, ok := l.hits.Get(key); ok {
		return e.v, nil
	}
	if e, ok := l.misses.Get(key); ok {
		return e.v, e.err
	}
	v, err := load()
	// The key outlives the request: callers pass strings that may be views of Fiber's request
	// buffer (a header, a query value), which is reused for the next request. Stored as is,
	// its bytes would change under the map, which then answers for the wrong key.
	key = strings.Clone(key)
	switch {
	case err == nil:
		l.hits.Add(key, entry[V]{v: v})
	case errors.Is(err, tenants.ErrNotFound):
		l.misses.Add(key, entry[V]{v: v, err: err})
	}
	return v, err
}

func (l *lookup[V]) purge(key string) {
	l.hits.Remove(key)
	l.misses.Remove(key)
}

// TTL is how stale a cached key, tenant or form may be: revocation takes effect within it.
const TTL = 15 * time.Second

const missTTL = 2 * time.Second

// Keys caches API keys by id.
type Keys struct {
	next tenants.KeyStore
	l    *lookup[tenants.APIKey]
}

var _ tenants.KeyStore = (*Keys)(nil)

// NewKeys wraps a KeyStore.
func NewKeys(next tenants.KeyStore) *Keys {
	return &Keys{next: next, l: newLookup[tenants.APIKey](10000, TTL, missTTL)}
}

// Lookup implements tenants.KeyStore.
func (k *Keys) Lookup(ctx context.Context, id string) (tenants.APIKey, error) {
	return k.l.get(id, func() (tenants.APIKey, error) { return k.next.Lookup(ctx, id) })
}

// Touch implements tenants.KeyStore.
func (k *Keys) Touch(ctx context.Context, id string, now time.Time) error {
	return k.next.Touch(ctx, id, now)
}

// Purge drops a key, after it was revoked here.
func (k *Keys) Purge(id string) { k.l.purge(id) }

// Tenants caches tenants by id.
type Tenants struct {
	next tenants.TenantStore
	l    *lookup[tenants.Tenant]
}

var _ tenants.TenantStore = (*Tenants)(nil)

// NewTenants wraps a TenantStore.
func NewTenants(next tenants.TenantStore) *Tenants {
	return &Tenants{next: next, l: newLookup[tenants.Tenant](10000, TTL, missTTL)}
}

// Get implements tenants.TenantStore.
func (t *Tenants) Get(ctx context.Context, id string) (tenants.Tenant, error) {
	return t.l.get(id, func() (tenants.Tenant, error) { return t.next.Get(ctx, id) })
}

// Purge drops a tenant, after it changed here.
func (t *Tenants) Purge(id string) { t.l.purge(id) }

// Forms caches forms by tenant and form id.
type Forms struct {
	next tenants.FormStore
	l    *lookup[tenants.Form]
}

var _ tenants.FormStore = (*Forms)(nil)

// NewForms wraps a FormStore.
func NewForms(next tenants.FormStore) *Forms {
	return &Forms{next: next, l: newLookup[tenants.Form](10000, TTL, missTTL)}
}

// Get implements tenants.FormStore.
func (f *Forms) Get(ctx context.Context, tenantID, formID string) (tenants.Form, error) {
	return f.l.get(tenants.FormKey(tenantID, formID), func() (tenants.Form, error) { return f.next.Get(ctx, tenantID, formID) })
}

// Purge drops a form, after it changed here.
func (f *Forms) Purge(tenantID, formID string) { f.l.purge(tenants.FormKey(tenantID, formID)) }

// textTTL is how stale a form's cached consent texts may be, as stale as the form itself: a
// version published by another process (the CLI, another instance) is used without an
// explicit id within it; an explicit version id is never refused for staleness (Reload).
const textTTL = TTL

// Texts caches each form's consent texts, read on every submission to a form.
type Texts struct {
	next tenants.TextStore
	l    *lookup[[]tenants.ConsentText]
}

// NewTexts wraps a TextStore.
func NewTexts(next tenants.TextStore) *Texts {
	return &Texts{next: next, l: newLookup[[]tenants.ConsentText](10000, textTTL, missTTL)}
}

// List returns the form's texts in publication order, cached; callers must not change them.
func (t *Texts) List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	return t.l.get(tenants.FormKey(tenantID, formID), func() ([]tenants.ConsentText, error) { return t.next.List(ctx, tenantID, formID) })
}

// Reload reads the form's texts from the store past the cache and caches them: for a version
// id the cached list does not know, which may have been published elsewhere a moment ago.
func (t *Texts) Reload(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	t.Purge(tenantID, formID)
	return t.List(ctx, tenantID, formID)
}

// Purge drops a form's texts, after one was published here.
func (t *Texts) Purge(tenantID, formID string) { t.l.purge(tenants.FormKey(tenantID, formID)) }

// endpointTTL is how long a live outgoing webhook endpoint is taken as read: a deletion or a
// disabling made elsewhere reaches the delivery attempts within it (this instance's own
// changes purge at once). An endpoint read as disabled or missing is never cached, so an
// attempt fails for that reason only on what the store says now.
const endpointTTL = time.Second

// Outbox caches the live endpoints that delivery attempts read (Endpoint): a backlog sent at
// the pace its endpoint answers read the endpoint's row once per delivery, 5 % of the
// server's CPU under intake with webhooks on.
type Outbox struct {
	tenants.OutboxRepo
	live *expirable.LRU[string, tenants.Endpoint]
}

var _ tenants.OutboxRepo = (*Outbox)(nil)

// NewOutbox wraps an OutboxRepo.
func NewOutbox(next tenants.OutboxRepo) *Outbox {
	return &Outbox{OutboxRepo: next, live: expirable.NewLRU[string, tenants.Endpoint](10000, nil, endpointTTL)}
}

// Endpoint implements tenants.OutboxRepo.
func (o *Outbox) Endpoint(ctx context.Context, tenantID, id string) (tenants.Endpoint, error) {
	key := tenantID + "/" + id
	if e, ok := o.live.Get(key); ok {
		return e, nil
	}
	e, err := o.OutboxRepo.Endpoint(ctx, tenantID, id)
	if err == nil && e.Live() {
		o.live.Add(key, e)
	}
	return e, err
}

// SetFailing implements tenants.OutboxRepo.
func (o *Outbox) SetFailing(ctx context.Context, tenantID, id string, since *time.Time) error {
	defer o.live.Remove(tenantID + "/" + id)
	return o.OutboxRepo.SetFailing(ctx, tenantID, id, since)
}

// DeleteEndpoint implements tenants.OutboxRepo.
func (o *Outbox) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	defer o.live.Remove(tenantID + "/" + id)
	return o.OutboxRepo.DeleteEndpoint(ctx, tenantID, id)
}
