package tenants

import (
	"context"
	"time"
)

// Data-subject requests (docs/API.md §17.3): "send me a copy of my data" and "erase my data",
// filed by the person on their preference page and carried out by staff with the access
// export and erasure. A request names the person by the keyed hash of their identifiers only
// (Subject, as the audit log does) and the record whose link filed it; never an identifier.

// Audit actions of data-subject requests.
const (
	ActionSubjectRequestFiled     = "subject_request.filed"
	ActionSubjectRequestCompleted = "subject_request.completed"
)

// What a data-subject request asks for.
const (
	SubjectRequestAccess  = "access"
	SubjectRequestErasure = "erasure"
)

// The states of a data-subject request: open until staff carry it out.
const (
	SubjectRequestOpen = "open"
	SubjectRequestDone = "done"
)

// SourcePreferencePage is where a request filed on the person's preference page came from.
const SourcePreferencePage = "preference page"

// SubjectRequest is one data-subject request. A person has at most one open request of each
// kind at a tenant: filing another while one is open gives the open one.
type SubjectRequest struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	Kind     string `json:"kind"`
	// Subject is the keyed hash of the person's identifiers (the audit subject); RecordKind
	// and RecordID the record whose preference link filed it.
	Subject    string     `json:"subject"`
	RecordKind Kind       `json:"recordKind"`
	RecordID   string     `json:"recordId"`
	Source     string     `json:"source"`
	FiledAt    time.Time  `json:"filedAt"`
	Status     string     `json:"status"`
	DoneBy     string     `json:"doneBy,omitempty"` // the staff actor who carried it out
	DoneAt     *time.Time `json:"doneAt,omitempty"`
}

// SubjectRequestFilter selects a tenant's requests; every field set must hold ("" any).
type SubjectRequestFilter struct {
	Status   string
	Subject  string
	RecordID string
}

// SubjectRequestRepo keeps data-subject requests.
type SubjectRequestRepo interface {
	// FileSubjectRequest stores r unless its person has an open request of its kind at the
	// tenant; it returns the open request either way, and whether it is r, new.
	FileSubjectRequest(ctx context.Context, r SubjectRequest) (SubjectRequest, bool, error)
	GetSubjectRequest(ctx context.Context, tenantID, id string) (SubjectRequest, error)
	// ListSubjectRequests returns the tenant's requests matching f, newest first, at most
	// limit (0: no limit).
	ListSubjectRequests(ctx context.Context, tenantID string, f SubjectRequestFilter, limit int) ([]SubjectRequest, error)
	// CloseSubjectRequest marks an open request done by actor at at: ErrNotFound for an
	// unknown one, ErrConflict for one done already.
	CloseSubjectRequest(ctx context.Context, tenantID, id, by string, at time.Time) error
}
