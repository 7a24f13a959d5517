package ops

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Data-subject requests (docs/API.md §17.3): the person files "send me a copy of my data" or
// "erase my data" on their preference page; staff see the request in the admin UI and carry
// it out with the access export and erasure. A request names the person by the keyed hash of
// their identifiers and the record whose link filed it; the identifiers are read from that
// record when staff act, so none is kept with the request.

// requestListMax bounds one list of requests (a tenant's open ones are few).
const requestListMax = 500

// FileRequest files a data-subject request of kind (tenants.SubjectRequestAccess or
// SubjectRequestErasure) for the person of the withdrawal link token, audited with actor
// subject; while one of that kind is open, the open one stands (a repeat files nothing). The
// page then shows the person's requests. An erased person can file nothing (LinkNothing); an
// unknown kind is tenants.Violations.
func (s *LinkPages) FileRequest(ctx context.Context, token, kind, requestID string) (LinkPage, error) {
	claims, rec, page, err := s.withdrawable(ctx, token)
	if err != nil || page.State != LinkOpen {
		return s.withRequests(ctx, rec, page)
	}
	if kind != tenants.SubjectRequestAccess && kind != tenants.SubjectRequestErasure {
		page, err = s.preferencePage(ctx, rec, page)
		if err != nil {
			return page, err
		}
		return page, tenants.Violations{{Field: "request", Code: "unknown", Message: "Choose a copy of your data or its erasure."}}
	}
	now := s.Now().UTC().Truncate(time.Millisecond)
	subject := s.recordSubject(ctx, rec)
	req := tenants.SubjectRequest{ID: "sr_" + tenants.NewAuditID(now)[:20], TenantID: claims.TenantID, Kind: kind, Subject: subject,
		RecordKind: rec.Kind, RecordID: rec.PublicID, Source: tenants.SourcePreferencePage, FiledAt: now, Status: tenants.SubjectRequestOpen}
	got, created, err := s.Requests.FileSubjectRequest(ctx, req)
	if err != nil {
		return page, wrap("file request", err)
	}
	if created {
		err = s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: claims.TenantID, Actor: ActorSubject, Action: tenants.ActionSubjectRequestFiled,
			Subject: subject, Detail: kind + " request " + got.ID + " via " + tenants.SourcePreferencePage, RequestID: requestID})
		if err != nil {
			return page, wrap("file request", err)
		}
	}
	page, err = s.preferencePage(ctx, rec, page)
	page.Filed = kind
	return page, err
}

// preferencePage fills page with what the person holds and their requests.
func (s *LinkPages) preferencePage(ctx context.Context, rec tenants.Record, page LinkPage) (LinkPage, error) {
	page, err := s.preferenceItems(ctx, rec, page)
	if err != nil {
		return page, err
	}
	return s.withRequests(ctx, rec, page)
}

// withRequests adds the person's data-subject requests to page: by the person while their
// record is held (Live), else those filed through this record's link (an erasure shown done).
func (s *LinkPages) withRequests(ctx context.Context, rec tenants.Record, page LinkPage) (LinkPage, error) {
	if s.Requests == nil || rec.PublicID == "" || page.State == LinkInvalid {
		return page, nil
	}
	f := tenants.SubjectRequestFilter{RecordID: rec.PublicID}
	if page.Live {
		f = tenants.SubjectRequestFilter{Subject: s.recordSubject(ctx, rec)}
	}
	list, err := s.Requests.ListSubjectRequests(ctx, rec.TenantID, f, requestListMax)
	page.Requests = list
	return page, wrap("read requests", err)
}

// Requests are the staff's cases of data-subject requests: the list, the copy, carrying out.
type Requests struct {
	*Core
	Requests tenants.SubjectRequestRepo
	Rights   *Rights
	Persons  *Persons
}

// List returns the tenant's requests of status ("" every one), newest first.
func (s *Requests) List(ctx context.Context, tenantID, status string) ([]tenants.SubjectRequest, error) {
	list, err := s.Requests.ListSubjectRequests(ctx, tenantID, tenants.SubjectRequestFilter{Status: status}, requestListMax)
	return list, wrap("list requests", err)
}

// Get returns one request (tenants.ErrNotFound for none of the tenant's).
func (s *Requests) Get(ctx context.Context, tenantID, id string) (tenants.SubjectRequest, error) {
	return s.Requests.GetSubjectRequest(ctx, tenantID, id)
}

// Export is the copy of the person's data an access request asks for: the access export of
// the identifiers of the record that filed it (audited gdpr.exported by actor). An erasure
// request, or one whose record is erased, is ErrConflict.
func (s *Requests) Export(ctx context.Context, tenantID, id, actor, requestID string) (PersonExport, error) {
	r, id2, err := s.person(ctx, tenantID, id)
	if err != nil {
		return PersonExport{}, err
	}
	if r.Kind != tenants.SubjectRequestAccess || (id2 == Identity{}) {
		return PersonExport{}, tenants.ErrConflict
	}
	return s.Rights.Export(ctx, tenantID, actor, requestID, id2)
}

// Complete carries out an open request as actor: an erasure request erases the person (as
// erasure by their identifiers does; nothing left when their record is erased already), an
// access request is marked done once staff sent the copy. Audited
// subject_request.completed; a request done already is ErrConflict.
func (s *Requests) Complete(ctx context.Context, tenantID, id, actor, requestID string) (tenants.SubjectRequest, Erasure, error) {
	r, person, err := s.person(ctx, tenantID, id)
	if err != nil {
		return r, Erasure{}, err
	}
	if r.Status != tenants.SubjectRequestOpen {
		return r, Erasure{}, tenants.ErrConflict
	}
	var done Erasure
	if r.Kind == tenants.SubjectRequestErasure && (person != Identity{}) {
		if done, err = s.Persons.Erase(ctx, tenantID, actor, requestID, person); err != nil {
			return r, done, err
		}
	}
	now := s.Now().UTC()
	if err := s.Requests.CloseSubjectRequest(ctx, tenantID, id, actor, now); err != nil {
		return r, done, wrap("complete request", err)
	}
	err = s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionSubjectRequestCompleted,
		Subject: r.Subject, Counts: done.Counts.Map(), Detail: r.Kind + " request " + r.ID, RequestID: requestID})
	r.Status, r.DoneBy, r.DoneAt = tenants.SubjectRequestDone, actor, &now
	return r, done, wrap("complete request", err)
}

// person reads request id and the identifiers of the record that filed it (none when that
// record is erased or gone).
func (s *Requests) person(ctx context.Context, tenantID, id string) (tenants.SubjectRequest, Identity, error) {
	r, err := s.Requests.GetSubjectRequest(ctx, tenantID, id)
	if err != nil {
		return r, Identity{}, err
	}
	rec, err := s.Records.Get(ctx, tenantID, r.RecordKind, r.RecordID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return r, Identity{}, nil
	case err != nil:
		return r, Identity{}, wrap("read request record", err)
	case rec.AnonymisedAt != nil:
		return r, Identity{}, nil
	}
	return r, s.ownIdentity(ctx, rec), nil
}
