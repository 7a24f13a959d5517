package tenants

import (
	"context"
	"time"
)

// Audit actions of bulk erasure (docs/API.md §5.6). Their entries hold counts, never an
// identifier.
const (
	ActionBulkRequested = "gdpr.bulk_requested"
	ActionBulkApproved  = "gdpr.bulk_approved"
	ActionBulkRejected  = "gdpr.bulk_rejected"
	ActionBulkCompleted = "gdpr.bulk_completed"
	ActionBulkExpired   = "gdpr.bulk_expired"
)

// Bulk erasure states: pending until a second person decides; approved while it runs.
const (
	BulkPending  = "pending"
	BulkApproved = "approved"
	BulkRejected = "rejected"
	BulkDone     = "done"
	BulkExpired  = "expired"
)

// BulkErasure is a request to erase many people at once, run only after a tenant admin other
// than the requester approved it. Keys are the match keys (keyed hashes) of its identifiers,
// never the identifiers; they are removed when the request finishes, is rejected or expires.
type BulkErasure struct {
	ID          string     `json:"id"`
	TenantID    string     `json:"tenantId"`
	RequestedBy string     `json:"requestedBy"` // staff id
	RequestedAt time.Time  `json:"requestedAt"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	Status      string     `json:"status"`
	DecidedBy   string     `json:"decidedBy,omitempty"`
	DecidedAt   *time.Time `json:"decidedAt,omitempty"`
	FinishedAt  *time.Time `json:"finishedAt,omitempty"`
	// Emails and Phones count the identifiers; Expected the records they matched per kind at
	// the request, Erased those anonymised so far.
	Emails   int            `json:"emails"`
	Phones   int            `json:"phones"`
	Expected map[string]int `json:"expected"`
	Erased   map[string]int `json:"erased"`
	Keys     []string       `json:"keys"`
	// Total is how many keys there were; Done how many have been erased.
	Total int `json:"total"`
	Done  int `json:"done"`
}

// BulkRepo keeps bulk erasure requests. Decide, Progress and Finish are conditional, so that
// two people or two servers acting at once cannot both succeed: ErrConflict for the one that
// lost. Runnable and Expired span tenants: they serve the background job.
type BulkRepo interface {
	InsertBulk(ctx context.Context, b BulkErasure) error
	GetBulk(ctx context.Context, tenantID, id string) (BulkErasure, error)
	// ListBulk returns the tenant's requests, newest first, without their keys.
	ListBulk(ctx context.Context, tenantID string) ([]BulkErasure, error)
	// DecideBulk moves a pending request to status (approved or rejected).
	DecideBulk(ctx context.Context, tenantID, id, status, by string, at time.Time) error
	// ProgressBulk records that the first done keys are erased, with the counts so far; only
	// for an approved request whose Done is below done.
	ProgressBulk(ctx context.Context, tenantID, id string, done int, erased map[string]int) error
	// FinishBulk sets a final status and removes the keys.
	FinishBulk(ctx context.Context, tenantID, id, status string, at time.Time) error
	RunnableBulk(ctx context.Context) ([]BulkErasure, error)
	// ExpiredBulk returns the pending requests whose ExpiresAt is at or before now.
	ExpiredBulk(ctx context.Context, now time.Time) ([]BulkErasure, error)
}
