package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
)

// Outcome is what ingesting a record did: a repeat is a result, not an error.
type Outcome int

// The outcomes of Ingest and IngestDraft.
const (
	// Stored: the record is new and stored.
	Stored Outcome = iota + 1
	// Repeated: an idempotent repeat; the tenant holds a record of that kind under the same
	// public id, and nothing changed.
	Repeated
)

// IngestDraft stores the record a parsed body describes for tenantID and returns its public id
// and what happened. vs are the violations intake found (the form check's included): a refused
// body is still a repeat when its submission_id is stored, since a retry answers as the first
// attempt did, also when it would now fail (the form has closed, a deadline passed: docs/API.md
// §3.3); otherwise the violations are the error (tenants.Violations).
func (s *Service) IngestDraft(ctx context.Context, tenantID string, d intake.Draft, vs []tenants.Violation, actor, requestID string) (string, Outcome, error) {
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
	return rec.PublicID, out, err
}
