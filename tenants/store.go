package tenants

import (
	"context"
	"time"
)

// The storage the domain operations need, declared here by their consumer and implemented
// by package sqlite (the embedded store) and package mongo. Every method that reads or writes
// a tenant's data takes the tenant id; the few that span tenants say so in their names.

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

// RecordStore reads records.
type RecordStore interface {
	Get(ctx context.Context, tenantID string, kind Kind, publicID string) (Record, error)
	// Find returns the tenant's records of kinds (every kind when none are given) that carry
	// any of matchKeys, through an index: finding a person never reads other records.
	Find(ctx context.Context, tenantID string, matchKeys []string, kinds ...Kind) ([]Record, error)
}

// AuditLog appends audit entries.
type AuditLog interface {
	Append(ctx context.Context, entries ...AuditEntry) error
}

// Writer makes every change to records. Each method is all-or-nothing for the records it
// names, and answers only once its writes are durable.
type Writer interface {
	// Ingest stores one record with its audit entries. stored is false when the tenant has a
	// record of that kind and public id already: an idempotent repeat, which writes nothing.
	Ingest(ctx context.Context, in Ingestion) (stored bool, err error)
	// Erase applies ch to the tenant's records that carry its match keys; ch.Apply must
	// remove the personal data and the match keys. It returns the records it anonymised, as
	// they were before (concurrent identical erasures return each record to one of them only),
	// and leaves nothing of the removed data in the store's files where the store can see to it.
	Erase(ctx context.Context, ch Change) ([]Record, error)
	// Revoke applies ch to the tenant's records that carry its match keys and returns the
	// records it changed, as changed.
	Revoke(ctx context.Context, ch Change) ([]Record, error)
	// Expire records as expired, in the records and the audit log, the granted consents of
	// every tenant whose deadline is at or before run.Now, at most run.Limit records at a
	// time; it returns how many consents expired.
	Expire(ctx context.Context, run ExpiryRun) (int, error)
}

// Ingestion is what storing one record writes.
type Ingestion struct {
	Record Record       // MatchKeys set
	Audit  []AuditEntry // written only when the record is new
	// Events go to the outbox with the record; their ids are derived from the record, so
	// that a repeat writes them at most once.
	Events []OutboxEvent
}

// Change is a change to every record of one tenant that carries any of MatchKeys: an
// erasure or a revocation.
type Change struct {
	TenantID  string
	MatchKeys []string
	// RecordIDs, when set, name the records by their storage ids instead (MatchKeys is then
	// ignored): retention anonymises records of which some carry no match key.
	RecordIDs []string
	Kinds     []Kind // none: every kind
	// Apply changes rec in place and reports whether it changed; an unchanged record is left
	// as it is and not returned.
	Apply func(rec *Record) (bool, error)
	// Audit returns the audit entries for the changed records; it is called only when some
	// changed, and the entries are written with them.
	Audit func(changed []Record) []AuditEntry
	// Events, when set, returns the outbox events for the changed records, written with them.
	Events func(changed []Record) []OutboxEvent
}

// ExpiryRun is one pass of the expiry job.
type ExpiryRun struct {
	Now   time.Time
	Limit int
	// Audit returns the audit entries for a record whose consents (named as in the API)
	// expired, one per consent; they carry deterministic ids, so a repeated run appends
	// nothing twice, and a store counts an expiry where it added its entry (so instances
	// running the job at once count each expiry once).
	Audit func(rec Record, consents []string) []AuditEntry
	// Events, when set, returns the outbox events for such a record, with deterministic ids.
	Events func(rec Record, consents []string) []OutboxEvent
}

// Page is one page of a record list, newest first.
type Page struct {
	FormID string // "" = every form
	// Consent and Status keep live (not anonymised) records whose consent (a name as in the
	// API; "" = any of the three) reads Status at Now, deadlines applied.
	Consent ConsentName
	Status  ConsentStatus
	Now     time.Time
	// Cursor, when set, starts the page beside a row of the list (a record's public id)
	// instead of at the newest: a list pages by position, never by offset.
	Cursor *Cursor
	Limit  int64
}

// Cursor is a position in a newest-first list: beside the row with ID (a record's public id,
// an audit entry's id) created at Time. The page holds the rows older than it, or with Newer
// the rows newer than it, closest first and still listed newest first. A row that is gone
// leaves its time as the position.
type Cursor struct {
	Time  time.Time
	ID    string
	Newer bool
}

// AuditFilter narrows an audit listing, newest first.
type AuditFilter struct {
	Action   string
	Actor    string
	From, To time.Time
	Cursor   *Cursor // as Page's: the entries beside one, by its id
	Limit    int64   // 0 = no limit
}
