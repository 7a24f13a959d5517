package provision

import (
	"context"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// store is an in-memory store of everything provisioning touches.
// store is the tenant repository; each repository below wraps it, and embeds the contract's
// interface for the methods provisioning never calls.
type store struct {
	tenants.TenantRepo
	tenants map[string]tenants.Tenant
	keys    map[string]tenants.APIKey
	forms   map[string]tenants.Form
	staff   map[string]tenants.Staff
	tokens  map[string]tenants.WebhookToken
	hooks   []tenants.Endpoint
	ended   []string // staff whose sessions were ended
	audit   []tenants.AuditEntry
}

func (s *store) Insert(_ context.Context, t tenants.Tenant) error { s.tenants[t.ID] = t; return nil }
func (s *store) Get(_ context.Context, id string) (tenants.Tenant, error) {
	t, ok := s.tenants[id]
	if !ok {
		return t, tenants.ErrNotFound
	}
	return t, nil
}
func (s *store) SetStatus(_ context.Context, id, status string) error {
	t := s.tenants[id]
	t.Status = status
	s.tenants[id] = t
	return nil
}
func (s *store) SetSendGridKey(_ context.Context, id, key string) error {
	t := s.tenants[id]
	t.SendGridPublicKey = key
	s.tenants[id] = t
	return nil
}

func (s *store) SetDefaultCountry(_ context.Context, id, country string) error {
	t := s.tenants[id]
	t.DefaultCountry = country
	s.tenants[id] = t
	return nil
}

func (s *store) SetRetention(_ context.Context, id, retention, from string) error {
	t := s.tenants[id]
	t.Retention, t.RetentionFrom = retention, from
	s.tenants[id] = t
	return nil
}

type keys struct {
	tenants.KeyRepo
	*store
}

func (k keys) Insert(_ context.Context, key tenants.APIKey) error { k.keys[key.ID] = key; return nil }
func (k keys) Get(_ context.Context, tenantID, id string) (tenants.APIKey, error) {
	if key, ok := k.keys[id]; ok && key.TenantID == tenantID {
		return key, nil
	}
	return tenants.APIKey{}, tenants.ErrNotFound
}
func (k keys) List(_ context.Context, tenantID string) ([]tenants.APIKey, error) {
	var out []tenants.APIKey
	for _, key := range k.keys {
		if key.TenantID == tenantID {
			out = append(out, key)
		}
	}
	return out, nil
}
func (k keys) Revoke(_ context.Context, tenantID, id string, now time.Time) error {
	return revoke(k.keys, tenantID, id, func(key *tenants.APIKey) (string, **time.Time) { return key.TenantID, &key.RevokedAt }, now)
}

// revoke sets the revocation time of the credential m holds under id, when it is tenantID's.
func revoke[T any](m map[string]T, tenantID, id string, fields func(*T) (string, **time.Time), now time.Time) error {
	v, ok := m[id]
	if !ok {
		return tenants.ErrNotFound
	}
	owner, revokedAt := fields(&v)
	if owner != tenantID {
		return tenants.ErrNotFound
	}
	*revokedAt = &now
	m[id] = v
	return nil
}

type forms struct {
	tenants.FormRepo
	*store
}

func (f forms) Insert(_ context.Context, form tenants.Form) error {
	if _, ok := f.forms[tenants.FormKey(form.TenantID, form.FormID)]; ok {
		return tenants.ErrConflict
	}
	f.forms[tenants.FormKey(form.TenantID, form.FormID)] = form
	return nil
}
func (f forms) Get(_ context.Context, tenantID, formID string) (tenants.Form, error) {
	form, ok := f.forms[tenants.FormKey(tenantID, formID)]
	if !ok {
		return form, tenants.ErrNotFound
	}
	return form, nil
}
func (f forms) Save(_ context.Context, form tenants.Form) error {
	f.forms[tenants.FormKey(form.TenantID, form.FormID)] = form
	return nil
}

type staff struct {
	tenants.StaffRepo
	*store
}

func (s staff) Insert(_ context.Context, st tenants.Staff) error {
	for _, o := range s.staff {
		if o.Email == st.Email {
			return tenants.ErrConflict
		}
	}
	s.staff[st.ID] = st
	return nil
}
func (s staff) SetDisabled(_ context.Context, id string, disabled bool) error {
	st := s.staff[id]
	st.Disabled = disabled
	s.staff[id] = st
	return nil
}
func (s staff) SetPassword(_ context.Context, id, hash string, mustChange bool) error {
	st := s.staff[id]
	st.PasswordHash, st.MustChangePassword = hash, mustChange
	s.staff[id] = st
	return nil
}
func (s staff) List(_ context.Context, tenantID string) ([]tenants.Staff, error) {
	var out []tenants.Staff
	for _, st := range s.staff {
		if st.TenantID == tenantID {
			out = append(out, st)
		}
	}
	return out, nil
}

type sessions struct {
	tenants.SessionRepo
	st *store
}

func (s sessions) DeleteStaff(_ context.Context, id, _ string) error {
	s.st.ended = append(s.st.ended, id)
	return nil
}

type tokens struct {
	tenants.TokenRepo
	*store
}

func (t tokens) Insert(_ context.Context, tok tenants.WebhookToken) error {
	t.tokens[tok.ID] = tok
	return nil
}
func (t tokens) Revoke(_ context.Context, tenantID, id string, now time.Time) error {
	return revoke(t.tokens, tenantID, id, func(tok *tenants.WebhookToken) (string, **time.Time) { return tok.TenantID, &tok.RevokedAt }, now)
}

type endpoints struct {
	tenants.OutboxRepo
	*store
}

func (e endpoints) InsertEndpoint(_ context.Context, ep tenants.Endpoint) error {
	e.hooks = append(e.hooks, ep)
	return nil
}
func (e endpoints) Endpoints(_ context.Context, tenantID string) ([]tenants.Endpoint, error) {
	var out []tenants.Endpoint
	for _, ep := range e.hooks {
		if ep.TenantID == tenantID {
			out = append(out, ep)
		}
	}
	return out, nil
}
func (e endpoints) DeleteEndpoint(_ context.Context, tenantID, id string) error {
	for i, ep := range e.hooks {
		if ep.TenantID == tenantID && ep.ID == id {
			e.hooks = append(e.hooks[:i], e.hooks[i+1:]...)
			return nil
		}
	}
	return tenants.ErrNotFound
}

type audit struct{ *store }

func (a audit) Append(_ context.Context, entries ...tenants.AuditEntry) error {
	a.audit = append(a.audit, entries...)
	return nil
}

var now = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// newService is a Service on a fresh store holding tenant "t_a".
func newService(t *testing.T) (*Service, *store) {
	t.Helper()
	st := &store{tenants: map[string]tenants.Tenant{"t_a": {ID: "t_a", Name: "A", Status: tenants.TenantActive}},
		keys: map[string]tenants.APIKey{}, forms: map[string]tenants.Form{}, staff: map[string]tenants.Staff{},
		tokens: map[string]tenants.WebhookToken{}}
	return &Service{Tenants: st, APIKeys: keys{store: st}, Forms: forms{store: st}, Staff: staff{store: st}, Sessions: sessions{st: st}, Tokens: tokens{store: st},
		Endpoints: endpoints{store: st},
		Audit:     audit{st}, Now: func() time.Time { return now }}, st
}
