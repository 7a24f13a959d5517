// Package ops holds the operations on a person's data that the API and the admin UI share:
// ingesting records, finding a person's records, erasure, unsubscribe, consent reads and the
// expiry job. It works over the storage interfaces of package tenants.
package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
)

// Service runs the operations.
type Service struct {
	Records tenants.RecordStore
	People  tenants.PersonStore
	Forms   tenants.FormStore
	Audit   tenants.AuditLog
	Marks   tenants.ErasureMarks
	Writer  tenants.Writer
	Expiry  ExpiryStore
	// Scrub makes erased bytes unrecoverable from the store's files (embedded store).
	Scrub  func(ctx context.Context) error
	Hasher tenants.Hasher
	Now    func() time.Time
}

// Identity names a person: a normalised e-mail and/or E.164 phone ("" when not given).
type Identity struct {
	Email string
	Phone string
}

// hashes returns the keyed hashes the identity is looked up by in a tenant.
func (s *Service) hashes(tenantID string, id Identity) []string {
	var out []string
	if id.Email != "" {
		out = append(out, s.Hasher.Hash(tenantID, "e", id.Email))
	}
	if id.Phone != "" {
		out = append(out, s.Hasher.Hash(tenantID, "p", id.Phone))
	}
	return out
}

// Subject is the audit log's stand-in for an identity: its keyed hashes, never the values.
func (s *Service) Subject(tenantID string, id Identity) string {
	hs := s.hashes(tenantID, id)
	out := ""
	for i, h := range hs {
		if i > 0 {
			out += ","
		}
		out += h[:16]
	}
	return out
}

// Ingest stores a new record: it computes the match keys from every e-mail and phone the
// record holds, files the person lookups and consent deadlines, and the audit entries.
// ErrConflict means a record with the same id exists (an idempotent repeat).
func (s *Service) Ingest(ctx context.Context, rec tenants.Record, actor, requestID string) error {
	return s.Writer.Ingest(ctx, s.Prepare(rec, actor, requestID))
}

// Prepare computes what storing rec writes: its match keys, person lookups, deadlines and
// audit entries.
func (s *Service) Prepare(rec tenants.Record, actor, requestID string) tenants.Ingestion {
	emails, phones := anonymise.Identifiers(rec)
	in := tenants.Ingestion{}
	rec.MatchKeys = nil
	add := func(kind, v string) {
		h := s.Hasher.Hash(rec.TenantID, kind, v)
		if slices.Contains(rec.MatchKeys, h) {
			return
		}
		rec.MatchKeys = append(rec.MatchKeys, h)
		in.People = append(in.People, tenants.PersonRef{TenantID: rec.TenantID, Hash: h, Kind: rec.Kind, RecordID: rec.ID})
	}
	for _, e := range emails {
		add("e", e)
	}
	for _, p := range phones {
		add("p", p)
	}
	action := tenants.ActionRecordAccepted
	if rec.Kind == tenants.KindFormSubmission {
		action = tenants.ActionSubmissionAccepted
	}
	entry := func(action, detail string) tenants.AuditEntry {
		return tenants.AuditEntry{Time: rec.CreatedAt, TenantID: rec.TenantID, Actor: actor, Action: action,
			RecordIDs: []string{rec.PublicID}, Detail: detail, RequestID: requestID}
	}
	in.Audit = append(in.Audit, entry(action, string(rec.Kind)+" form="+rec.FormID))
	for _, c := range namedConsents(&rec) {
		if c.consent.Status != tenants.StatusGranted {
			continue
		}
		in.Audit = append(in.Audit, entry(tenants.ActionConsentGranted, c.name))
		if c.consent.Deadline != nil {
			in.Expiries = append(in.Expiries, tenants.Expiry{TenantID: rec.TenantID, Kind: rec.Kind, RecordID: rec.ID,
				Consent: c.name, Deadline: *c.consent.Deadline})
		}
	}
	in.Record = rec
	return in
}

type namedConsent struct {
	name    string
	consent *tenants.Consent
}

// namedConsents lists a record's consents under the names the API and audit log use.
func namedConsents(rec *tenants.Record) []namedConsent {
	return []namedConsent{
		{"primaryPurpose", &rec.Consents.PrimaryPurpose},
		{"generalContactEmail", &rec.Consents.GeneralContactEmail},
		{"generalContactPhone", &rec.Consents.GeneralContactPhone},
	}
}

// match is a record found for a person, with the lookup entries that led to it.
type match struct {
	rec  tenants.Record
	ref  string
	hash []string
}

// find returns the tenant's records matching the identity, through the person lookup only.
// A reference is trusted only if the record still carries the hash: references can outlive
// their records (a crash before the insert, an idempotent repeat with other contact data).
func (s *Service) find(ctx context.Context, tenantID string, id Identity, kinds ...tenants.Kind) ([]*match, map[string][]string, error) {
	refsByHash := map[string][]string{}
	hashesOf := map[string][]string{}
	var order []string
	for _, h := range s.hashes(tenantID, id) {
		refs, err := s.People.Refs(ctx, tenantID, h)
		if err != nil {
			return nil, nil, err
		}
		refsByHash[h] = refs
		for _, ref := range refs {
			kind, _, ok := splitRef(ref)
			if !ok || (len(kinds) > 0 && !slices.Contains(kinds, kind)) {
				continue
			}
			if _, seen := hashesOf[ref]; !seen {
				order = append(order, ref)
			}
			hashesOf[ref] = append(hashesOf[ref], h)
		}
	}
	loaded, err := s.load(ctx, tenantID, order)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*match, 0, len(order))
	for i, ref := range order {
		rec := loaded[i]
		if rec == nil {
			continue
		}
		m := &match{rec: *rec, ref: ref}
		for _, h := range hashesOf[ref] {
			if slices.Contains(rec.MatchKeys, h) {
				m.hash = append(m.hash, h)
			}
		}
		if len(m.hash) > 0 {
			out = append(out, m)
		}
	}
	return out, refsByHash, nil
}

// loadParallel bounds the concurrent reads of one lookup.
const loadParallel = 8

// load reads the referenced records concurrently (reads do not wait for the single writer);
// a missing record reads as nil.
func (s *Service) load(ctx context.Context, tenantID string, refs []string) ([]*tenants.Record, error) {
	out := make([]*tenants.Record, len(refs))
	errs := make([]error, len(refs))
	sem := make(chan struct{}, loadParallel)
	var wg sync.WaitGroup
	for i, ref := range refs {
		kind, recID, _ := splitRef(ref)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			rec, err := s.Records.GetByID(ctx, tenantID, kind, recID)
			switch {
			case err == nil:
				out[i] = &rec
			case !errors.Is(err, tenants.ErrNotFound):
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func splitRef(ref string) (tenants.Kind, string, bool) {
	for i := 0; i < len(ref); i++ {
		if ref[i] == '|' {
			return tenants.Kind(ref[:i]), ref[i+1:], true
		}
	}
	return "", "", false
}

// Counts are records per kind, under SPEC.md's names.
type Counts struct {
	FormSubmissions         int `json:"formSubmissions"`
	DigitisationSubmissions int `json:"digitisationSubmissions"`
	CanvassingSubmissions   int `json:"canvassingSubmissions"`
	PhoneCallTasks          int `json:"phoneCallTasks"`
}

func (c *Counts) add(kind tenants.Kind) {
	switch kind {
	case tenants.KindFormSubmission:
		c.FormSubmissions++
	case tenants.KindDigitisation:
		c.DigitisationSubmissions++
	case tenants.KindCanvassing:
		c.CanvassingSubmissions++
	case tenants.KindPhoneCallTask:
		c.PhoneCallTasks++
	}
}

// Total is the sum over kinds.
func (c Counts) Total() int {
	return c.FormSubmissions + c.DigitisationSubmissions + c.CanvassingSubmissions + c.PhoneCallTasks
}

// Map is the counts keyed by SPEC.md's names, for the audit log.
func (c Counts) Map() map[string]int {
	return map[string]int{"formSubmissions": c.FormSubmissions, "digitisationSubmissions": c.DigitisationSubmissions,
		"canvassingSubmissions": c.CanvassingSubmissions, "phoneCallTasks": c.PhoneCallTasks}
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
