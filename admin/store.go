package admin

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Store is the storage the admin UI reads and changes; package cmd fills it with the
// repositories of the configured store.
type Store struct {
	Tenants  TenantRepo
	APIKeys  KeyRepo
	Forms    FormRepo
	Staff    StaffRepo
	Audit    AuditRepo
	Records  RecordRepo
	Tokens   TokenRepo
	Sessions tenants.SessionRepo
	// Chains reads the audit chain's verifications (the audit page).
	Chains ChainRepo
	Outbox EndpointRepo
	Bulk   BulkRepo
}

// TenantRepo manages tenants.
type TenantRepo interface {
	Insert(ctx context.Context, t tenants.Tenant) error
	Get(ctx context.Context, id string) (tenants.Tenant, error)
	List(ctx context.Context) ([]tenants.Tenant, error)
	SetRateLimit(ctx context.Context, tenantID string, perSecond int) error
	SetStatus(ctx context.Context, tenantID, status string) error
	SetSendGridKey(ctx context.Context, tenantID, key string) error
	SetRetention(ctx context.Context, tenantID, retention, from string) error
	SetDefaultCountry(ctx context.Context, tenantID, country string) error
}

// KeyRepo manages API keys.
type KeyRepo interface {
	Insert(ctx context.Context, k tenants.APIKey) error
	List(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
}

// FormRepo manages forms.
type FormRepo interface {
	Insert(ctx context.Context, f tenants.Form) error
	Get(ctx context.Context, tenantID, formID string) (tenants.Form, error)
	Save(ctx context.Context, f tenants.Form) error
	List(ctx context.Context, tenantID string) ([]tenants.Form, error)
}

// StaffRepo manages staff users.
type StaffRepo interface {
	Insert(ctx context.Context, s tenants.Staff) error
	ByEmail(ctx context.Context, email string) (tenants.Staff, error)
	Lookup(ctx context.Context, id string) (tenants.Staff, error)
	List(ctx context.Context, tenantID string) ([]tenants.Staff, error)
	ListAll(ctx context.Context) ([]tenants.Staff, error)
	SetDisabled(ctx context.Context, id string, disabled bool) error
	SetPassword(ctx context.Context, id, hash string, mustChange bool) error
}

// AuditRepo reads and appends the audit log; the All methods span tenants.
type AuditRepo interface {
	Append(ctx context.Context, entries ...tenants.AuditEntry) error
	List(ctx context.Context, tenantID string, f tenants.AuditFilter) ([]tenants.AuditEntry, error)
	ListAll(ctx context.Context, f tenants.AuditFilter) ([]tenants.AuditEntry, error)
	Each(ctx context.Context, tenantID string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error
	EachAll(ctx context.Context, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error
}

// RecordRepo lists and reads records; List filters in the store (form, consent status).
type RecordRepo interface {
	Get(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (tenants.Record, error)
	List(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page) ([]tenants.Record, error)
	Count(ctx context.Context, tenantID string, kind tenants.Kind) (int64, error)
	CountUpTo(ctx context.Context, tenantID string, kind tenants.Kind, p tenants.Page, most int64) (int64, error)
	// ConsentStats counts records per consent and status, read at now (deadlines applied).
	ConsentStats(ctx context.Context, tenantID string, kind tenants.Kind, now time.Time) (tenants.ConsentStats, error)
	tenants.TrendRepo
}

// TokenRepo manages provider webhook tokens.
type TokenRepo interface {
	Insert(ctx context.Context, t tenants.WebhookToken) error
	List(ctx context.Context, tenantID string) ([]tenants.WebhookToken, error)
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
}
