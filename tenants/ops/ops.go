// Package ops holds the operations on a person's data that the API and the admin UI share:
// ingesting records, finding a person's records, erasure, unsubscribe, consent reads and the
// expiry job. It works over the storage interfaces of package tenants.
package ops

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Service runs the operations.
type Service struct {
	Records tenants.RecordStore
	Forms   tenants.FormStore
	Writer  tenants.Writer
	Hasher  tenants.Hasher
	Now     func() time.Time
	// Observer counts erasures, unsubscribes and expiries (nil: nothing is counted).
	Observer tenants.Observer
	// Rights, Audit and Catalogue serve the access export, the re-permission list and
	// retention (rights.go, retention.go).
	Rights    tenants.RightsRepo
	Audit     tenants.AuditLog
	Catalogue Catalogue
	// WebhookDiag records inbound webhook deliveries (webhookdiag.go; nil: none recorded).
	WebhookDiag *WebhookDiagnostics
	// Bulk keeps four-eyes bulk erasure requests (bulk.go).
	Bulk tenants.BulkRepo
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

// Ingest stores a new record with its match keys and audit entries. Its outcome is Repeated
// for an idempotent repeat: the tenant has a record of that kind and public id, and nothing
// changed. A record over intake.MaxIdentifiers is refused (tenants.Violations).
func (s *Service) Ingest(ctx context.Context, rec tenants.Record, actor, requestID string) (Outcome, error) {
	in, emails, phones := s.prepare(rec, actor, requestID)
	if v := intake.TooMany(emails, phones); v != nil {
		return 0, tenants.Violations{*v}
	}
	stored, err := s.Writer.Ingest(ctx, in)
	switch {
	case err != nil:
		return 0, err
	case !stored:
		return Repeated, nil
	}
	return Stored, nil
}

// Prepare computes what storing rec writes: its match keys (the keyed hash of every e-mail
// and phone it holds) and its audit entries.
func (s *Service) Prepare(rec tenants.Record, actor, requestID string) tenants.Ingestion {
	in, _, _ := s.prepare(rec, actor, requestID)
	return in
}

// prepare is Prepare that also returns the record's identifiers, for the limit on them.
func (s *Service) prepare(rec tenants.Record, actor, requestID string) (in tenants.Ingestion, emails, phones []string) {
	emails, phones = anonymise.Identifiers(rec)
	rec.MatchKeys = nil
	add := func(kind, v string) {
		if h := s.Hasher.Hash(rec.TenantID, kind, v); !slices.Contains(rec.MatchKeys, h) {
			rec.MatchKeys = append(rec.MatchKeys, h)
		}
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
	in = tenants.Ingestion{Audit: []tenants.AuditEntry{entry(action, string(rec.Kind)+" form="+rec.FormID)}}
	// One entry names every consent the record grants: the grants of one submission are one event.
	var granted []string
	for name, c := range rec.Consents.All() {
		if c.Status == tenants.StatusGranted {
			granted = append(granted, string(name))
		}
	}
	if len(granted) > 0 {
		in.Audit = append(in.Audit, entry(tenants.ActionConsentGranted, joinNames(granted)))
	}
	in.Record = rec
	in.Events = webhook.Granted(rec)
	return in, emails, phones
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ","
		}
		out += n
	}
	return out
}

// find returns the tenant's records of kinds matching the identity, newest first.
func (s *Service) find(ctx context.Context, tenantID string, id Identity, kinds ...tenants.Kind) ([]tenants.Record, error) {
	recs, err := s.Records.Find(ctx, tenantID, s.hashes(tenantID, id), kinds...)
	if err != nil {
		return nil, err
	}
	sortNewestFirst(recs)
	return recs, nil
}

func sortNewestFirst(recs []tenants.Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.After(recs[j].CreatedAt)
		}
		return recs[i].ID > recs[j].ID
	})
}

func publicIDs(recs []tenants.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.PublicID
	}
	return out
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
