package web

import (
	"net/url"
	"time"
)

// The four-eyes bulk erasure pages (docs/API.md §5.6).
const (
	PathBulk        = "/admin/bulk-erasure"
	PathBulkPreview = "/admin/bulk-erasure/preview"
)

// BulkPath is a request's page; BulkApprovePath and BulkRejectPath are where its buttons post.
func BulkPath(id string) string        { return PathBulk + "/" + url.PathEscape(id) }
func BulkApprovePath(id string) string { return BulkPath(id) + "/approve" }
func BulkRejectPath(id string) string  { return BulkPath(id) + "/reject" }

// BulkItem is one bulk erasure request as shown; it never holds an identifier.
type BulkItem struct {
	ID          string
	Status      string
	RequestedBy string // the requester's e-mail, or their id when unknown
	RequestedAt time.Time
	ExpiresAt   time.Time
	DecidedBy   string
	DecidedAt   *time.Time
	FinishedAt  *time.Time
	Emails      int
	Phones      int
	Expected    RecordCounts
	Erased      RecordCounts
	// ExpectedMentions and RemovedMentions count the records of others that mention the
	// people: only the mentions go.
	ExpectedMentions, RemovedMentions int
	Total, Done                       int
}

// BulkListPage lists the tenant's requests with the form to start one (GET PathBulk).
type BulkListPage struct {
	Layout   Layout
	Requests []BulkItem
	Text     string
	Errors   FieldErrors
}

// BulkPreviewPage shows what a pasted list would erase before it is submitted for approval.
type BulkPreviewPage struct {
	Layout       Layout
	Text         string // posted again on submit
	Emails       int
	Phones       int
	Counts       RecordCounts
	Mentions     int // records of others that only mention the people: only the mentions go
	Unmatched    []string
	Invalid      []string
	InvalidCount int
}

// BulkPage is one request: its counts, its decision and, while it runs, its progress, which
// the page polls (htmx).
type BulkPage struct {
	Layout Layout
	Bulk   BulkItem
	// CanDecide: the user may approve (role) and is not the requester; Own: the user asked.
	CanDecide bool
	Own       bool
}
