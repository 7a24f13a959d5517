package web

import (
	"net/url"
	"time"
)

// The data-subject requests page (docs/API.md §17.3).
const PathRequests = "/admin/requests"

// RequestExportPath is where an access request's "Download the copy" posts; RequestCompletePath
// where "Mark as sent" or "Erase now" posts.
func RequestExportPath(id string) string { return PathRequests + "/" + url.PathEscape(id) + "/export" }
func RequestCompletePath(id string) string {
	return PathRequests + "/" + url.PathEscape(id) + "/complete"
}

// RequestItem is one data-subject request as listed: the person by keyed hash only.
type RequestItem struct {
	ID, Kind, Status, Source string
	// Subject is the keyed hash of the person's identifiers; RecordPath the page of the
	// record whose preference link filed it.
	Subject    string
	RecordPath string
	FiledAt    time.Time
	DoneBy     string // the staff member's e-mail (or the actor when unknown)
	DoneAt     *time.Time
	// CanExport: the copy may be downloaded; CanComplete: the request may be carried out.
	CanExport, CanComplete bool
}

// KindLabel says what the request asks for.
func (r RequestItem) KindLabel() string {
	if r.Kind == "erasure" {
		return "Erase their data"
	}
	return "A copy of their data"
}

// ShortSubject is the start of the keyed hash, enough to tell people apart on one page.
func (r RequestItem) ShortSubject() string {
	if len(r.Subject) > 12 {
		return r.Subject[:12] + "…"
	}
	return r.Subject
}

// RequestsPage lists a tenant's requests; Status is the filter shown ("open" or "all").
type RequestsPage struct {
	Layout   Layout
	Status   string
	Requests []RequestItem
}
