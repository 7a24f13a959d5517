package ops

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
)

// Preview counts the records an erasure of the identity would anonymise, changing nothing.
func (s *Service) Preview(ctx context.Context, tenantID string, id Identity) (Counts, error) {
	matches, _, err := s.find(ctx, tenantID, id)
	if err != nil {
		return Counts{}, wrap("preview erasure", err)
	}
	var c Counts
	for _, m := range matches {
		c.add(m.rec.Kind)
	}
	return c, nil
}

// Erase anonymises every record of the tenant matching the identity (CONTRACT.md §5). In
// order: a marker is inserted per record, and a successful insert is what counts it (so
// concurrent identical calls never count a record twice); the audit entry; the records are
// stripped of personal data and match keys; the person's lookups go; the store's files are
// scrubbed. A call repeated after a crash at any step still finds the records not yet
// stripped, strips them and completes the rest, counting nothing twice.
func (s *Service) Erase(ctx context.Context, tenantID, actor, requestID string, id Identity) (Counts, error) {
	matches, refsByHash, err := s.find(ctx, tenantID, id)
	if err != nil {
		return Counts{}, wrap("erase", err)
	}
	now := s.Now()
	var counts Counts
	recIDs := make([]string, len(matches))
	for i, m := range matches {
		recIDs[i] = m.rec.ID
	}
	first, err := s.Marks.MarkMany(ctx, tenantID, recIDs, now)
	if err != nil {
		return counts, wrap("erase", err)
	}
	var ids []string
	for i, m := range matches {
		if first[i] {
			counts.add(m.rec.Kind)
			ids = append(ids, m.rec.PublicID)
		}
	}
	if counts.Total() > 0 {
		err := s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor,
			Action: tenants.ActionGDPRAnonymised, RecordIDs: ids, Counts: counts.Map(),
			Subject: s.Subject(tenantID, id), RequestID: requestID})
		if err != nil {
			return counts, wrap("erase", err)
		}
	}
	forms := map[string]map[string]bool{}
	// other identifiers of the erased records (a phone found through the e-mail) lose their
	// references too, so no keyed hash of the person outlives the erasure needlessly.
	extra := map[string][]string{}
	stripped := make([]tenants.Record, 0, len(matches))
	for _, m := range matches {
		for _, h := range m.rec.MatchKeys {
			if _, looked := refsByHash[h]; !looked {
				extra[h] = append(extra[h], m.ref)
			}
		}
		declared, err := s.declared(ctx, tenantID, m.rec.FormID, forms)
		if err != nil {
			return counts, wrap("erase", err)
		}
		stripped = append(stripped, anonymise.Strip(m.rec, declared, now))
	}
	if err := s.Records.ReplaceMany(ctx, stripped); err != nil {
		return counts, wrap("erase", err)
	}
	for _, h := range slices.Sorted(maps.Keys(refsByHash)) {
		if err := s.Writer.Forget(ctx, tenantID, h, refsByHash[h]); err != nil {
			return counts, wrap("erase", err)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(extra)) {
		if err := s.Writer.Forget(ctx, tenantID, h, extra[h]); err != nil {
			return counts, wrap("erase", err)
		}
	}
	// Always, even with nothing matched: a repeat after a failed or interrupted scrub finds
	// no records any more but must still complete it.
	if s.Scrub != nil {
		if err := s.Scrub(ctx); err != nil {
			return counts, wrap("erase", err)
		}
	}
	return counts, nil
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
