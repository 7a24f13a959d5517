package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Erasure is what an erasure did, or would do: the person's own records anonymised (Counts,
// the four counts of the API), and the records of others from which only the custom-field
// values naming the person were removed (RemovedMentions).
type Erasure struct {
	Counts          tenants.Counts
	RemovedMentions int
}

// Preview counts the records an erasure of the identity would anonymise, and those of others
// it would only remove mentions from, changing nothing.
func (s *Persons) Preview(ctx context.Context, tenantID string, id Identity) (Erasure, error) {
	own, mentions, err := s.FindPerson(ctx, tenantID, id)
	if err != nil {
		return Erasure{}, wrap("preview erasure", err)
	}
	return Erasure{Counts: tenants.CountKinds(own), RemovedMentions: len(mentions)}, nil
}

// FindPerson returns the tenant's records of every kind that belong to the identity, and
// apart from them those that only mention it in a custom field, each newest first: the admin
// UI's "find a person". It reads through the match-key index, as erasure does, so it finds
// exactly the records an erasure of the identity would anonymise, and those it would remove the
// mentions from.
func (s *Persons) FindPerson(ctx context.Context, tenantID string, id Identity) (own, mentions []tenants.Record, err error) {
	if own, err = s.find(ctx, tenantID, id); err != nil {
		return nil, nil, wrap("find person", err)
	}
	found, err := s.Records.Find(ctx, tenantID, s.mentionHashes(tenantID, id))
	if err != nil {
		return nil, nil, wrap("find person", err)
	}
	for _, r := range found {
		if !slices.ContainsFunc(own, func(o tenants.Record) bool { return o.ID == r.ID }) {
			mentions = append(mentions, r)
		}
	}
	sortNewestFirst(mentions)
	return own, mentions, nil
}

// Erase erases the identity in the tenant (docs/API.md §5): every record that belongs to it is
// anonymised — the personal data and the match keys go — and from every other record that
// mentions it in a custom field, the values naming it go (RemoveMentions). One audit entry
// counts what this call anonymised, another the records it removed mentions from. The store
// makes it all-or-nothing, counts each record for one call only however many run at once, and
// leaves nothing removed in its files.
func (s *Persons) Erase(ctx context.Context, tenantID, actor, requestID string, id Identity) (Erasure, error) {
	return s.EraseKeys(ctx, tenantID, actor, requestID, s.Subject(tenantID, id), "",
		s.hashes(tenantID, id), s.mentionHashes(tenantID, id))
}

// EraseKeys is Erase of the records carrying any of own (anonymised) or mentions (the mentions
// removed); subject and detail go to the audit entry. The bulk erasure job runs through it too.
func (s *Persons) EraseKeys(ctx context.Context, tenantID, actor, requestID, subject, detail string, own, mentions []string) (Erasure, error) {
	now := s.Now()
	country, err := s.TenantCountry(ctx, tenantID)
	if err != nil {
		return Erasure{}, wrap("erase", err)
	}
	// What the change needs is loaded before it writes: the personal fields of the forms of the
	// person's records, so that the write reads nothing from the store.
	forms, err := s.formsOf(ctx, tenantID, own)
	if err != nil {
		return Erasure{}, wrap("erase", err)
	}
	belongs := func(rec tenants.Record) bool {
		return slices.ContainsFunc(rec.MatchKeys, func(k string) bool { return slices.Contains(own, k) })
	}
	erased, err := s.Writer.Erase(ctx, tenants.Change{
		TenantID:  tenantID,
		MatchKeys: append(slices.Clone(own), mentions...),
		Apply: func(rec *tenants.Record) (bool, error) {
			if !belongs(*rec) {
				return s.removeMentions(rec, country, mentions), nil
			}
			declared, ok := forms[rec.FormID]
			if !ok {
				// A record of a form none of the person's records had when the erasure began,
				// stored since: the erasure writes nothing, and its repeat loads that form too.
				return false, &tenants.RetryError{Err: fmt.Errorf("a record of form %q arrived during the erasure: %w", rec.FormID, tenants.ErrUnavailable), After: time.Second}
			}
			*rec = anonymise.StripIn(*rec, declared, country, now)
			return true, nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			anonymised, mentioned := splitErased(changed)
			var out []tenants.AuditEntry
			if len(anonymised) > 0 {
				out = append(out, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionGDPRAnonymised,
					RecordIDs: publicIDs(anonymised), Counts: tenants.CountKinds(anonymised).Map(), Subject: subject, Detail: detail, RequestID: requestID})
			}
			if len(mentioned) > 0 {
				out = append(out, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionGDPRMentionsRemoved,
					RecordIDs: publicIDs(mentioned), Counts: map[string]int{"removedMentions": len(mentioned)}, Subject: subject, Detail: detail, RequestID: requestID})
			}
			return out
		},
		Events: func(changed []tenants.Record) []tenants.OutboxEvent {
			anonymised, _ := splitErased(changed)
			return webhook.Anonymised(tenants.EventTypeRecordAnonymised, tenants.NewAuditID(now), now, anonymised)
		},
	})
	if err != nil {
		return Erasure{}, wrap("erase", err)
	}
	var out Erasure
	for _, rec := range erased {
		if belongs(rec) {
			out.Counts = out.Counts.Plus(tenants.CountKinds([]tenants.Record{rec}))
		} else {
			out.RemovedMentions++
		}
	}
	s.Observe().Count(tenants.EventErasure, 1)
	s.Observe().Count(tenants.EventErasedRecord, out.Counts.Total())
	return out, nil
}

// removeMentions removes from rec the custom-field values whose mention key is among keys, and
// those keys; it reports whether rec changed.
func (s *Persons) removeMentions(rec *tenants.Record, country string, keys []string) bool {
	domains := map[string]string{"e": domainMentionEmail, "p": domainMentionPhone}
	out, _ := anonymise.RemoveMentions(*rec, country, func(kind, n string) bool {
		return slices.Contains(keys, s.Hasher.Hash(rec.TenantID, domains[kind], n))
	})
	left := slices.DeleteFunc(slices.Clone(rec.MatchKeys), func(k string) bool { return slices.Contains(keys, k) })
	if len(left) == len(rec.MatchKeys) {
		return false
	}
	out.MatchKeys = left
	*rec = out
	return true
}

// splitErased splits the records an erasure changed into those it anonymised and those it
// removed mentions from (which keep their contact data and get no anonymisedAt).
func splitErased(changed []tenants.Record) (anonymised, mentioned []tenants.Record) {
	for _, r := range changed {
		if r.AnonymisedAt != nil {
			anonymised = append(anonymised, r)
		} else {
			mentioned = append(mentioned, r)
		}
	}
	return anonymised, mentioned
}

// TenantCountry returns the tenant's default country ("" when it has none or Tenants is not wired).
func (s *Core) TenantCountry(ctx context.Context, tenantID string) (string, error) {
	if s.Tenants == nil {
		return "", nil
	}
	t, err := s.Tenants.Get(ctx, tenantID)
	if errors.Is(err, tenants.ErrNotFound) {
		return "", nil
	}
	return t.DefaultCountry, err
}

// formsOf returns the personal fields (PersonalFields) of the forms of the tenant's records
// that carry any of keys, by form id.
func (s *Persons) formsOf(ctx context.Context, tenantID string, keys []string) (map[string]map[string]bool, error) {
	forms := map[string]map[string]bool{}
	if len(keys) == 0 {
		return forms, nil
	}
	recs, err := s.Records.Find(ctx, tenantID, keys)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if _, err := s.PersonalFields(ctx, tenantID, r.FormID, forms); err != nil {
			return nil, err
		}
	}
	return forms, nil
}

// PersonalFields returns the custom fields the form declares personal, cached in cache (per
// pass or call).
func (s *Persons) PersonalFields(ctx context.Context, tenantID, formID string, cache map[string]map[string]bool) (map[string]bool, error) {
	if d, ok := cache[formID]; ok {
		return d, nil
	}
	if formID == "" { // a record of no form declares nothing
		cache[formID] = map[string]bool{}
		return cache[formID], nil
	}
	f, err := s.Forms.Get(ctx, tenantID, formID)
	if errors.Is(err, tenants.ErrNotFound) {
		cache[formID] = map[string]bool{}
		return cache[formID], nil
	}
	if err != nil {
		return nil, err
	}
	cache[formID] = f.PersonalFields()
	return cache[formID], nil
}
