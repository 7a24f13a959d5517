package tenants

import (
	"context"
	"time"
)

// The storage the domain operations need, declared here by their consumer and implemented
// by package mongo. Every method that reads or writes a tenant's data takes the tenant id.

// KeyStore finds API keys for authentication.
type KeyStore interface {
	Lookup(ctx context.Context, id string) (APIKey, error)
	Touch(ctx context.Context, id string, now time.Time) error
}

// TenantStore reads tenants.
type TenantStore interface {
	Get(ctx context.Context, id string) (Tenant, error)
}

// FormStore reads forms.
type FormStore interface {
	Get(ctx context.Context, tenantID, formID string) (Form, error)
}

// RecordStore reads and rewrites records by id.
type RecordStore interface {
	Get(ctx context.Context, tenantID string, kind Kind, publicID string) (Record, error)
	GetByID(ctx context.Context, tenantID string, kind Kind, id string) (Record, error)
	Replace(ctx context.Context, rec Record) error
	SetConsents(ctx context.Context, rec Record) error
	// ReplaceMany and SetConsentsMany write many records in one bulk write per kind.
	ReplaceMany(ctx context.Context, recs []Record) error
	SetConsentsMany(ctx context.Context, recs []Record) error
}

// PersonStore reads the per-person lookup.
type PersonStore interface {
	Refs(ctx context.Context, tenantID, hash string) ([]string, error)
}

// AuditLog appends audit entries.
type AuditLog interface {
	Append(ctx context.Context, entries ...AuditEntry) error
}

// ErasureMarks counts each anonymised record once.
type ErasureMarks interface {
	// MarkMany marks records anonymised in one write; first[i] is false where record i was
	// marked already.
	MarkMany(ctx context.Context, tenantID string, recordIDs []string, now time.Time) (first []bool, err error)
}

// Writer is the single writer of records and the per-person lookup: it batches concurrent
// ingestions and serialises lookup removal with lookup additions.
type Writer interface {
	// Ingest stores one record with its lookup references, deadlines and audit entries and
	// returns when it is durably stored; ErrConflict when a record with its id exists.
	Ingest(ctx context.Context, in Ingestion) error
	// Forget removes handled references from a person's lookup, and the lookup once empty.
	Forget(ctx context.Context, tenantID, hash string, refs []string) error
}

// Ingestion is what storing one record writes.
type Ingestion struct {
	Record   Record
	People   []PersonRef
	Expiries []Expiry
	Audit    []AuditEntry // written only when the record is new
}

// PersonRef says that record (kind, storage id) carries the identifier with keyed hash Hash.
type PersonRef struct {
	TenantID string
	Hash     string
	Kind     Kind
	RecordID string
}

// Ref is the stored form of a record reference in a person's lookup.
func Ref(kind Kind, recordID string) string { return string(kind) + "|" + recordID }

// Expiry is one consent deadline for the expiry job to record when it passes.
type Expiry struct {
	TenantID string    `bson:"tenantId"`
	Kind     Kind      `bson:"kind"`
	RecordID string    `bson:"recordId"`
	Consent  string    `bson:"consent"`
	Deadline time.Time `bson:"deadline"`
}

// Page is one page of a record list, newest first.
type Page struct {
	FormID string // "" = every form
	Skip   int64
	Limit  int64
}

// AuditFilter narrows an audit listing, newest first.
type AuditFilter struct {
	Action   string
	Actor    string
	From, To time.Time
	Skip     int64
	Limit    int64
}
