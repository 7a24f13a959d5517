package tenants

import (
	"context"
	"time"
)

// The repositories every store implements (package sqlite, package mongo) and one contract
// test suite checks (package storetest): Stores below names each. Every method is declared
// once: the narrow views the cases read through (KeyStore, TenantStore, FormStore,
// RecordStore, AuditLog and the Writer, in store.go; TextStore in texts.go) are embedded in
// the repositories that have them. The other repositories live beside their domain types:
// auditchain.go, bulk.go, challenge.go, lease.go, matchkeys.go, outbox.go, rights.go,
// sessions.go, smssecret.go, spent.go, subjectrequest.go, texts.go, trends.go, webhookdiag.go.

// TenantRepo manages tenants. A tenant's own id is its key, so its methods take it as the
// tenant argument; List spans tenants (platform admin).
type TenantRepo interface {
	TenantStore
	Insert(ctx context.Context, t Tenant) error
	List(ctx context.Context) ([]Tenant, error)
	SetRateLimit(ctx context.Context, tenantID string, perSecond int) error
	SetStatus(ctx context.Context, tenantID, status string) error
	SetSendGridKey(ctx context.Context, tenantID, key string) error
	// SetRetention stores the tenant's default retention ("" clears it) and what it counts from.
	SetRetention(ctx context.Context, tenantID, retention, from string) error
	// SetDefaultCountry stores the tenant's default country (ISO 3166 alpha-2; "" clears it).
	SetDefaultCountry(ctx context.Context, tenantID, country string) error
	// SetSMSStopWords stores the tenant's own SMS opt-out words (nil clears them).
	SetSMSStopWords(ctx context.Context, tenantID string, words []string) error
	// SetIdentity stores the organisation's identity (the zero Identity clears it).
	SetIdentity(ctx context.Context, tenantID string, id Identity) error
}

// KeyRepo manages API keys. Lookup finds a key of any tenant: authentication does not know
// the tenant before it has the key.
type KeyRepo interface {
	KeyStore
	Insert(ctx context.Context, k APIKey) error
	Get(ctx context.Context, tenantID, id string) (APIKey, error)
	List(ctx context.Context, tenantID string) ([]APIKey, error)
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
	// OriginAllowed reports whether a publishable key of any tenant, usable at now, allows the
	// web origin: a CORS preflight carries no key, so it is answered by the origin alone.
	OriginAllowed(ctx context.Context, origin string, now time.Time) (bool, error)
}

// FormRepo manages forms; Insert answers ErrConflict for a form id the tenant has.
type FormRepo interface {
	FormStore
	Insert(ctx context.Context, f Form) error
	Save(ctx context.Context, f Form) error
	List(ctx context.Context, tenantID string) ([]Form, error)
}

// StaffRepo manages staff users; Insert answers ErrConflict for an e-mail in use. ByEmail,
// Lookup, ListAll and Count span tenants: signing in does not know the tenant.
type StaffRepo interface {
	Insert(ctx context.Context, s Staff) error
	ByEmail(ctx context.Context, email string) (Staff, error)
	Lookup(ctx context.Context, id string) (Staff, error)
	List(ctx context.Context, tenantID string) ([]Staff, error)
	ListAll(ctx context.Context) ([]Staff, error)
	Count(ctx context.Context) (int64, error)
	// SetDisabled disables or re-enables the user; SetPassword replaces the password hash
	// and whether it must be changed at the next sign-in. ErrNotFound for an unknown id.
	SetDisabled(ctx context.Context, id string, disabled bool) error
	SetPassword(ctx context.Context, id, hash string, mustChange bool) error
}

// TokenRepo manages provider webhook tokens; Lookup finds a token of any tenant (the
// webhook URL carries no tenant).
type TokenRepo interface {
	Insert(ctx context.Context, t WebhookToken) error
	Lookup(ctx context.Context, id string) (WebhookToken, error)
	List(ctx context.Context, tenantID string) ([]WebhookToken, error)
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
	// Touch records the token's last use; ErrNotFound for an unknown id.
	Touch(ctx context.Context, id string, now time.Time) error
}

// AuditRepo is the append-only audit log, read newest first (time, then order of append).
// An entry appended with an id that exists is not appended again, so that a repeated job
// writes nothing twice. The All methods span tenants (platform admin).
type AuditRepo interface {
	AuditLog
	List(ctx context.Context, tenantID string, f AuditFilter) ([]AuditEntry, error)
	ListAll(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// Each streams the matching entries to fn without holding them all (CSV export).
	Each(ctx context.Context, tenantID string, f AuditFilter, fn func(AuditEntry) error) error
	EachAll(ctx context.Context, f AuditFilter, fn func(AuditEntry) error) error
}

// RecordRepo reads records for the API and the admin UI.
type RecordRepo interface {
	RecordStore
	List(ctx context.Context, tenantID string, kind Kind, p Page) ([]Record, error)
	Count(ctx context.Context, tenantID string, kind Kind) (int64, error)
	// CountUpTo counts the records List would list under p's filters (paging aside), up to most.
	CountUpTo(ctx context.Context, tenantID string, kind Kind, p Page, most int64) (int64, error)
	// ConsentStats counts the tenant's live records of kind per consent and status at now,
	// deadlines applied, and its anonymised ones apart.
	ConsentStats(ctx context.Context, tenantID string, kind Kind, now time.Time) (ConsentStats, error)
	TrendRepo
	RightsRepo
}

// Transfer moves a whole database between stores as a stream of items.
type Transfer interface {
	// Export calls fn with every document of every tenant, tenants and staff first.
	Export(ctx context.Context, fn func(Item) error) error
	// Import stores items; one that exists already (same id) is skipped, so an import can be
	// repeated. It returns how many were new.
	Import(ctx context.Context, items []Item) (int, error)
	// Empty reports whether the store holds no tenant, staff user or record.
	Empty(ctx context.Context) (bool, error)
}

// Item is one exported document; exactly one field is set.
type Item struct {
	Tenant *Tenant       `json:"tenant,omitempty"`
	Staff  *Staff        `json:"staff,omitempty"`
	APIKey *APIKey       `json:"apiKey,omitempty"`
	Form   *Form         `json:"form,omitempty"`
	Token  *WebhookToken `json:"webhookToken,omitempty"`
	Record *Record       `json:"record,omitempty"`
	Audit  *AuditEntry   `json:"audit,omitempty"`
	// Text is a published consent text version (docs/API.md §12).
	Text *ConsentText `json:"consentText,omitempty"`
}

// Stores is one open database: every repository, the writer, and its life cycle.
type Stores struct {
	Tenants TenantRepo
	APIKeys KeyRepo
	Forms   FormRepo
	Staff   StaffRepo
	Tokens  TokenRepo
	Audit   AuditRepo
	// AuditChains walks the audit log's hash chains (consentforms audit verify).
	AuditChains AuditChainRepo
	// WebhookDiag keeps the inbound webhook diagnostics.
	WebhookDiag WebhookDiagRepo
	Records     RecordRepo
	Sessions    SessionRepo
	// Outbox holds outgoing webhook endpoints, events and deliveries (docs/WEBHOOKS.md).
	Outbox OutboxRepo
	// Bulk holds four-eyes bulk erasure requests (docs/API.md §5.6).
	Bulk BulkRepo
	// SMS keeps the SMS provider secrets (sealed) and the inbound messages applied.
	SMS SMSRepo
	// MatchKeys re-derives people's lookups (consentforms rehash).
	MatchKeys MatchKeyRepo
	Writer    Writer
	Transfer  Transfer
	// Texts keeps the forms' published consent text versions (docs/API.md §12).
	Texts TextRepo
	// Leases keep the once-per-cluster jobs to one instance; nil where one instance is all
	// there is (the embedded store).
	Leases LeaseRepo
	// SpentTokens remembers the used confirmation links.
	SpentTokens SpentTokenRepo
	// Ping reports whether the database answers (ErrUnavailable when it does not).
	Ping func(ctx context.Context) error
	// Close finishes queued writes and closes the database.
	Close func(ctx context.Context) error
	// Challenges remembers the spent spam challenges of the web forms (challenge.go).
	Challenges ChallengeRepo
	// SubjectRequests keeps the data-subject requests of the preference page (subjectrequest.go).
	SubjectRequests SubjectRequestRepo
}
