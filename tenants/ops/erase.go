package ops

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Preview counts the records an erasure of the identity would anonymise, changing nothing.
func (s *Service) Preview(ctx context.Context, tenantID string, id Identity) (tenants.Counts, error) {
	recs, err := s.find(ctx, tenantID, id)
	if err != nil {
		return tenants.Counts{}, wrap("preview erasure", err)
	}
	return tenants.CountKinds(recs), nil
}

// Erase anonymises every record of the tenant matching the identity (docs/API.md §5): the
// personal data and the match keys go, and one audit entry counts what this call anonymised.
// The store makes it all-or-nothing, counts each record for one call only however many run
// at once, and leaves nothing removed in its files.
func (s *Service) Erase(ctx context.Context, tenantID, actor, requestID string, id Identity) (tenants.Counts, error) {
	return s.eraseKeys(ctx, tenantID, actor, requestID, s.Subject(tenantID, id), "", s.hashes(tenantID, id))
}

// eraseKeys is Erase of the records carrying any of keys; subject and detail go to the audit
// entry. Bulk erasure runs through it too.
func (s *Service) eraseKeys(ctx context.Context, tenantID, actor, requestID, subject, detail string, keys []string) (tenants.Counts, error) {
	now := s.Now()
	forms := map[string]map[string]bool{}
	erased, err := s.Writer.Erase(ctx, tenants.Change{
		TenantID:  tenantID,
		MatchKeys: keys,
		Apply: func(rec *tenants.Record) (bool, error) {
			declared, err := s.declared(ctx, tenantID, rec.FormID, forms)
			if err != nil {
				return false, err
			}
			*rec = anonymise.Strip(*rec, declared, now)
			return true, nil
		},
		Audit: func(erased []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionGDPRAnonymised,
				RecordIDs: publicIDs(erased), Counts: tenants.CountKinds(erased).Map(), Subject: subject, Detail: detail, RequestID: requestID}}
		},
		Events: func(erased []tenants.Record) []tenants.OutboxEvent {
			return webhook.Anonymised(tenants.EventTypeRecordAnonymised, tenants.NewAuditID(now), now, erased)
		},
	})
	if err != nil {
		return tenants.Counts{}, wrap("erase", err)
	}
	s.Observe().Count(tenants.EventErasure, 1)
	s.Observe().Count(tenants.EventErasedRecord, len(erased))
	return tenants.CountKinds(erased), nil
}

// declared returns the custom fields the record's form declares personal, cached per call.
func (s *Service) declared(ctx context.Context, tenantID, formID string, cache map[string]map[string]bool) (map[string]bool, error) {
	if formID == "" {
		return nil, nil
	}
	if d, ok := cache[formID]; ok {
		return d, nil
	}
	f, err := s.Forms.Get(ctx, tenantID, formID)
	if errors.Is(err, tenants.ErrNotFound) {
		cache[formID] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cache[formID] = f.PersonalFields()
	return cache[formID], nil
}
