package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/intake"
)

// Outcome is what ingesting a record did: a repeat is a result, not an error.
type Outcome int

// The outcomes of Ingest and Submit.
const (
	// Stored: the record is new and stored.
	Stored Outcome = iota + 1
	// Repeated: an idempotent repeat; the tenant holds a record of that kind under the same
	// public id, and nothing changed.
	Repeated
)

// ingestDraft stores the record a parsed body describes for tenantID and returns its public id
// and what happened. vs are the violations intake found (the form check's included): a refused
// body is still a repeat when its submission_id is stored, since a retry answers as the first
// attempt did, also when it would now fail (the form has closed, a deadline passed: docs/API.md
// §3.3); otherwise the violations are the error (tenants.Violations).
func (s *Intake) ingestDraft(ctx context.Context, tenantID string, d intake.Draft, vs []tenants.Violation, actor, requestID string) (string, Outcome, error) {
	if len(vs) > 0 {
		if d.SubmissionID != "" {
			if _, err := s.Records.Get(ctx, tenantID, d.Kind, d.SubmissionID); err == nil {
				return d.SubmissionID, Repeated, nil
			}
		}
		return "", 0, tenants.Violations(vs)
	}
	rec := d.Record(tenantID)
	out, err := s.ingest(ctx, rec, d.Country, d.IDs, actor, requestID)
	if err != nil {
		return rec.PublicID, out, err
	}
	return rec.PublicID, out, s.applyOutcome(ctx, d, rec, actor, requestID)
}

// applyOutcome honours a section-6 record's "do not call" (general contact by phone, for its
// number) or "do not contact" (both general-contact consents, for every identifier it carries
// in its own contact fields) on the records that belong to those identifiers, the new one
// included. It runs on a repeat too: a retry after a failure between the two writes must not
// lose the opt-out, and a revocation applied twice changes nothing twice.
func (s *Intake) applyOutcome(ctx context.Context, d intake.Draft, rec tenants.Record, actor, requestID string) error {
	var (
		ch  Channels
		via string
	)
	switch {
	case d.Kind == tenants.KindPhoneCallTask && d.Flag(intake.DoNotCall):
		ch, via = PhoneChannel, "phone_bank"
	case d.Kind == tenants.KindCanvassing && d.Flag(intake.DoNotContact):
		ch, via = BothChannels, "canvassing"
	default:
		return nil
	}
	ids := anonymise.Identifiers(rec, d.Country)
	var people []Identity
	if ch.Email {
		for _, e := range ids.Emails {
			people = append(people, Identity{Email: e})
		}
	}
	for _, p := range ids.Phones {
		people = append(people, Identity{Phone: p})
	}
	_, err := s.RevokeContact(ctx, rec.TenantID, actor, via, requestID, people, ch)
	return err
}
