package ops

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// Bulk erasure (docs/API.md §5.6): a support user asks to erase many people at once; a tenant
// admin other than the requester approves it; a background job (package jobs) then erases
// them in batches through EraseKeys, the erasure of POST /api/v1/gdpr/search-and-anonymise.
const (
	// MaxBulkIdentifiers bounds one request's distinct e-mail addresses and phone numbers.
	MaxBulkIdentifiers = 10000
	// BulkTTL is how long a request waits for a decision before it expires.
	BulkTTL = 7 * 24 * time.Hour
	// maxInvalidShown bounds the lines a preview lists as not understood.
	maxInvalidShown = 100
)

// Bulk erasure refusals.
var (
	ErrSelfApproval = errors.New("the requester cannot decide their own request")
	// ErrPuppetApprover refuses an approver the requester could have made for the purpose.
	ErrPuppetApprover = errors.New("an account created by the requester, directly or through accounts it created, or after the request, cannot approve it")
	ErrBulkDecided    = errors.New("the request is no longer pending")
	ErrBulkExpired    = errors.New("the request has expired")
	ErrTooManyInBulk  = errors.New("at most " + strconv.Itoa(MaxBulkIdentifiers) + " identifiers in one request")
	ErrNothingInBulk  = errors.New("no e-mail address or phone number found")
)

// BulkInput is the identifiers of a pasted list or CSV, normalised and without repeats, in
// the order given; Invalid holds (the first of) the cells that are neither.
type BulkInput struct {
	Emails, Phones []string
	Invalid        []string
	InvalidCount   int
}

// headerCells are the column names a CSV's first line may carry.
var headerCells = map[string]bool{"email": true, "e-mail": true, "email_address": true, "phone": true,
	"phone_number": true, "mobile": true, "telephone": true}

// ParseBulk reads lines of e-mail addresses and/or phone numbers, one or more per line
// separated by commas, semicolons or tabs (a CSV's cells), quotes stripped; phone numbers in
// international form, or national ones of country (the tenant's default, "" none).
func ParseBulk(text, country string) (BulkInput, error) {
	var in BulkInput
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		for _, cell := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' || r == '\t' }) {
			cell = strings.Trim(strings.TrimSpace(cell), `"'`)
			if cell == "" || headerCells[strings.ToLower(cell)] {
				continue
			}
			if e, ok := contact.NormaliseEmail(cell); ok && strings.Contains(cell, "@") {
				if !seen["e"+e] {
					seen["e"+e] = true
					in.Emails = append(in.Emails, e)
				}
			} else if p, ok := contact.NormalisePhone(cell, country); ok {
				if !seen["p"+p] {
					seen["p"+p] = true
					in.Phones = append(in.Phones, p)
				}
			} else {
				in.InvalidCount++
				if len(in.Invalid) < maxInvalidShown {
					in.Invalid = append(in.Invalid, cell)
				}
			}
		}
	}
	switch n := len(in.Emails) + len(in.Phones); {
	case n > MaxBulkIdentifiers:
		return in, ErrTooManyInBulk
	case n == 0:
		return in, ErrNothingInBulk
	}
	return in, nil
}

// mentionPrefix marks the mention keys among a bulk erasure's stored keys; the others are
// belonging keys (a request stored before mentions were told apart holds only those, and
// erases as it did).
const mentionPrefix = "m:"

// bulkKeys returns the keys of the identifiers, e-mail addresses first, two per identifier:
// the belonging key an erasure of that one identifier looks up, then its mention key marked
// with mentionPrefix.
func (s *Bulk) bulkKeys(tenantID string, in BulkInput) []string {
	out := make([]string, 0, 2*(len(in.Emails)+len(in.Phones)))
	add := func(id Identity) {
		out = append(out, s.hashes(tenantID, id)...)
		for _, m := range s.mentionHashes(tenantID, id) {
			out = append(out, mentionPrefix+m)
		}
	}
	for _, e := range in.Emails {
		add(Identity{Email: e})
	}
	for _, p := range in.Phones {
		add(Identity{Phone: p})
	}
	return out
}

// SplitBulkKeys splits stored bulk keys into belonging and mention keys.
func SplitBulkKeys(keys []string) (own, mentions []string) {
	for _, k := range keys {
		if m, ok := strings.CutPrefix(k, mentionPrefix); ok {
			mentions = append(mentions, m)
		} else {
			own = append(own, k)
		}
	}
	return own, mentions
}

// BulkPreview is what a request would erase now: the records per kind that belong to the
// identifiers, how many records of others only mention them, and the identifiers that match
// no record, e-mail addresses first.
type BulkPreview struct {
	Counts    tenants.Counts
	Mentions  int
	Unmatched []string
}

// PreviewBulk counts the records the identifiers match, changing nothing.
func (s *Bulk) PreviewBulk(ctx context.Context, tenantID string, in BulkInput) (BulkPreview, error) {
	keys := s.bulkKeys(tenantID, in)
	own, mentions := SplitBulkKeys(keys)
	keys = append(own, mentions...)
	found := map[string]tenants.Record{}
	for start := 0; start < len(keys); start += 500 {
		recs, err := s.Records.Find(ctx, tenantID, keys[start:min(start+500, len(keys))])
		if err != nil {
			return BulkPreview{}, wrap("preview bulk erasure", err)
		}
		for _, r := range recs {
			found[r.ID] = r
		}
	}
	matched := map[string]bool{}
	recs := make([]tenants.Record, 0, len(found))
	var p BulkPreview
	for _, r := range found {
		if slices.ContainsFunc(r.MatchKeys, func(k string) bool { return slices.Contains(own, k) }) {
			recs = append(recs, r)
		} else {
			p.Mentions++
		}
		for _, k := range r.MatchKeys {
			matched[k] = true
		}
	}
	p.Counts = tenants.CountKinds(recs)
	ids := append(append([]string{}, in.Emails...), in.Phones...)
	for i := range ids {
		if !matched[own[i]] && !matched[mentions[i]] {
			p.Unmatched = append(p.Unmatched, ids[i])
		}
	}
	return p, nil
}

// RequestBulk stores a request to erase the identifiers, pending a second person's decision.
// The audit entry counts the identifiers and the records they match; it never names them.
func (s *Bulk) RequestBulk(ctx context.Context, tenantID, staffID, requestID string, in BulkInput) (tenants.BulkErasure, error) {
	p, err := s.PreviewBulk(ctx, tenantID, in)
	if err != nil {
		return tenants.BulkErasure{}, err
	}
	now := s.Now().UTC().Truncate(time.Millisecond)
	keys := s.bulkKeys(tenantID, in)
	b := tenants.BulkErasure{ID: "be_" + tenants.NewAuditID(now)[:20], TenantID: tenantID, RequestedBy: staffID, RequestedAt: now,
		ExpiresAt: now.Add(BulkTTL), Status: tenants.BulkPending, Emails: len(in.Emails), Phones: len(in.Phones),
		Expected: WithMentions(p.Counts, p.Mentions), Erased: tenants.Counts{}.Map(), Keys: keys, Total: len(keys)}
	if err := s.Bulk.InsertBulk(ctx, b); err != nil {
		return b, wrap("request bulk erasure", err)
	}
	counts := p.Counts.Map()
	counts["emails"], counts["phones"] = b.Emails, b.Phones
	return b, s.AuditBulk(ctx, b, "staff:"+staffID, tenants.ActionBulkRequested, counts, requestID)
}

// DecideBulk approves or rejects a pending request, as a staff user other than its requester;
// an approval also by none the requester controls (MayApprove). A rejected request's match
// keys go at once; an approved one runs in the background (RunBulk).
func (s *Bulk) DecideBulk(ctx context.Context, tenantID, id, staffID, requestID string, approve bool) error {
	b, err := s.Bulk.GetBulk(ctx, tenantID, id)
	switch {
	case err != nil:
		return err
	case b.Status != tenants.BulkPending:
		return ErrBulkDecided
	case b.RequestedBy == staffID:
		return ErrSelfApproval
	case !s.Now().Before(b.ExpiresAt):
		if err := s.ExpireBulk(ctx, b); err != nil {
			return err
		}
		return ErrBulkExpired
	}
	if approve {
		if err := s.MayApprove(ctx, b, staffID); err != nil {
			return err
		}
	}
	status, action := tenants.BulkApproved, tenants.ActionBulkApproved
	if !approve {
		status, action = tenants.BulkRejected, tenants.ActionBulkRejected
	}
	if err := s.Bulk.DecideBulk(ctx, tenantID, id, status, staffID, s.Now().UTC()); err != nil {
		if errors.Is(err, tenants.ErrConflict) {
			return ErrBulkDecided
		}
		return err
	}
	if !approve {
		if err := s.Bulk.FinishBulk(ctx, tenantID, id, tenants.BulkRejected, s.Now().UTC()); err != nil {
			return err
		}
	}
	counts := map[string]int{"emails": b.Emails, "phones": b.Phones}
	return s.AuditBulk(ctx, b, "staff:"+staffID, action, counts, requestID)
}

// StaffLookup finds a staff user by id, for four-eyes approval.
type StaffLookup interface {
	Lookup(ctx context.Context, id string) (tenants.Staff, error)
}

// auditReader is the audit log read back: staff users created before accounts recorded their
// creator (Staff.CreatedBy) are followed through their staff.created entries.
type auditReader interface {
	Each(ctx context.Context, tenantID string, f tenants.AuditFilter, fn func(tenants.AuditEntry) error) error
}

// MayApprove refuses (ErrPuppetApprover) the approval of request b by an account the requester
// controls: one created after the request, or one the requester created, directly or through
// accounts it created in turn (requester → P1 → P2: neither P1 nor P2 may approve). The chain
// of creators is followed up from the approver until an account created by no one (the command
// line, the first start).
func (s *Bulk) MayApprove(ctx context.Context, b tenants.BulkErasure, approverID string) error {
	if s.Staff == nil {
		return nil
	}
	var legacy map[string]string // creator by account, from the audit log, read when first needed
	seen := map[string]bool{}
	for id := approverID; id != "" && !seen[id]; {
		seen[id] = true
		st, err := s.Staff.Lookup(ctx, id)
		if errors.Is(err, tenants.ErrNotFound) {
			return nil
		}
		if err != nil {
			return wrap("four-eyes approval", err)
		}
		if id == approverID && st.CreatedAt.After(b.RequestedAt) {
			return ErrPuppetApprover
		}
		creator := st.CreatedBy
		if creator == "" {
			if legacy == nil {
				if legacy, err = s.staffCreators(ctx, b.TenantID); err != nil {
					return err
				}
			}
			creator = legacy[id]
		}
		if creator == b.RequestedBy {
			return ErrPuppetApprover
		}
		id = creator
	}
	return nil
}

// staffCreators maps the accounts of the tenant to the staff users that created them, as the
// tenant's staff.created entries name them.
func (s *Bulk) staffCreators(ctx context.Context, tenantID string) (map[string]string, error) {
	out := map[string]string{}
	r, ok := s.Audit.(auditReader)
	if !ok {
		return out, nil
	}
	err := r.Each(ctx, tenantID, tenants.AuditFilter{Action: tenants.ActionStaffCreated}, func(e tenants.AuditEntry) error {
		if by, ok := strings.CutPrefix(e.Actor, "staff:"); ok {
			for _, id := range e.RecordIDs {
				out[id] = by
			}
		}
		return nil
	})
	return out, wrap("four-eyes approval", err)
}

// RemovedMentionsKey counts, beside the per-kind counts of a bulk erasure's Expected and Erased,
// the records of others that mention the people (only the mentions go).
const RemovedMentionsKey = "removedMentions"

// WithMentions is c as a request's Expected or Erased map, with mentions under
// RemovedMentionsKey.
func WithMentions(c tenants.Counts, mentions int) map[string]int {
	m := c.Map()
	m[RemovedMentionsKey] = mentions
	return m
}

// ExpireBulk ends request b as expired, its keys removed: the bulk erasure job does so once
// BulkTTL passed without a decision, a decision coming too late does so at once.
func (s *Bulk) ExpireBulk(ctx context.Context, b tenants.BulkErasure) error {
	if err := s.Bulk.FinishBulk(ctx, b.TenantID, b.ID, tenants.BulkExpired, s.Now().UTC()); err != nil {
		return err
	}
	return s.AuditBulk(ctx, b, tenants.ActorSystem, tenants.ActionBulkExpired, map[string]int{"emails": b.Emails, "phones": b.Phones}, "")
}

// AuditBulk appends the audit entry of a step of bulk erasure request b: its counts, never an
// identifier.
func (s *Bulk) AuditBulk(ctx context.Context, b tenants.BulkErasure, actor, action string, counts map[string]int, requestID string) error {
	return s.Audit.Append(ctx, tenants.AuditEntry{Time: s.Now().UTC(), TenantID: b.TenantID, Actor: actor, Action: action,
		Counts: counts, Detail: "bulk erasure " + b.ID, RequestID: requestID})
}
