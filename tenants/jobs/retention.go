package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Catalogue lists what retention goes through: every tenant, and each tenant's forms.
type Catalogue interface {
	ListTenants(ctx context.Context) ([]tenants.Tenant, error)
	ListForms(ctx context.Context, tenantID string) ([]tenants.Form, error)
}

// retentionBatch is how many records one erasure of the retention pass anonymises: each batch
// holds the store's writer while it runs, and intake waits for it.
const retentionBatch = 100

// policy is one retention setting: of a form, or ("" form) a tenant's default.
type policy struct {
	tenantID, formID string
	retention, from  string
}

// RunRetention anonymises, for every tenant, the records whose retention has passed: each
// form's records by the form's retention, the records of no form by the tenant's default. It
// goes through Writer.Erase with the anonymiser of erasure, so the personal data and the match
// keys go as they do there, in batches of retentionBatch records; each batch writes one audit
// entry retention.anonymised with its counts (one per form and run unless a form has more
// than a batch due). A record anonymised is no longer due, so a repeat anonymises nothing.
func (p *Passes) RunRetention(ctx context.Context) (tenants.Counts, error) {
	ts, err := p.Catalogue.ListTenants(ctx)
	if err != nil {
		return tenants.Counts{}, fmt.Errorf("retention: %w", err)
	}
	var total tenants.Counts
	var errs []error
	for _, t := range ts {
		policies := []policy{}
		if t.Retention != "" {
			policies = append(policies, policy{tenantID: t.ID, retention: t.Retention, from: t.RetentionFrom})
		}
		forms, err := p.Catalogue.ListForms(ctx, t.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range forms {
			if f.Retention != "" {
				policies = append(policies, policy{tenantID: t.ID, formID: f.FormID, retention: f.Retention, from: f.RetentionFrom})
			}
		}
		// One tenant's failure does not keep the others' records.
		for _, pol := range policies {
			n, err := p.retain(ctx, pol)
			total = total.Plus(n)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return total, fmt.Errorf("retention: %w", err)
	}
	return total, nil
}

// retain anonymises the records of one policy that are due.
func (p *Passes) retain(ctx context.Context, pol policy) (tenants.Counts, error) {
	s := p.Ops.Rights
	iv, from, err := consent.ParseRetention(pol.retention, pol.from)
	if err != nil {
		return tenants.Counts{}, err
	}
	now := s.Now().UTC()
	cutoff := iv.Before(now)
	country, err := s.TenantCountry(ctx, pol.tenantID)
	if err != nil {
		return tenants.Counts{}, err
	}
	forms := map[string]map[string]bool{}
	var total tenants.Counts
	for {
		started := time.Now()
		due, err := s.Rights.Due(ctx, pol.tenantID, tenants.DueQuery{FormID: pol.formID, From: from, Before: cutoff, Limit: retentionBatch})
		if err != nil || len(due) == 0 {
			return total, err
		}
		// The forms' personal fields are loaded before the write (which reads nothing): the
		// records it changes are these, by id.
		ids := make([]string, len(due))
		for i, r := range due {
			ids[i] = r.ID
			if _, err := p.Ops.Persons.PersonalFields(ctx, pol.tenantID, r.FormID, forms); err != nil {
				return total, err
			}
		}
		erased, err := s.Writer.Erase(ctx, tenants.Change{TenantID: pol.tenantID, RecordIDs: ids,
			Apply: func(rec *tenants.Record) (bool, error) {
				// Read again inside the erasure: a record anonymised or given a new consent since is left.
				if rec.AnonymisedAt != nil || !dueAt(*rec, from, cutoff) {
					return false, nil
				}
				*rec = anonymise.StripIn(*rec, forms[rec.FormID], country, now)
				return true, nil
			},
			Audit: func(erased []tenants.Record) []tenants.AuditEntry {
				return []tenants.AuditEntry{{Time: now, TenantID: pol.tenantID, Actor: tenants.ActorSystem, Action: tenants.ActionRetentionAnonymised,
					RecordIDs: publicIDs(erased), Counts: tenants.CountKinds(erased).Map(), Detail: retentionDetail(pol, from)}}
			},
			Events: func(erased []tenants.Record) []tenants.OutboxEvent {
				return webhook.Anonymised(tenants.EventTypeRetentionAnonymised, tenants.NewAuditID(now), now, erased)
			},
		})
		total = total.Plus(tenants.CountKinds(erased))
		if err != nil {
			return total, err
		}
		// Fewer than a batch means none is left; none erased means the rest changed meanwhile.
		if len(due) < retentionBatch || len(erased) == 0 {
			return total, nil
		}
		// The pass is in no hurry: it leaves the writer to intake for as long as a batch took.
		if err := pause(ctx, time.Since(started)); err != nil {
			return total, err
		}
	}
}

// dueAt reports whether rec's retention basis is at or before cutoff.
func dueAt(rec tenants.Record, from string, cutoff time.Time) bool {
	basis := &rec.CreatedAt
	if from == tenants.RetentionFromConsentsLapsed {
		basis = rec.Consents.LapsedAt(rec.CreatedAt)
	}
	return basis != nil && !basis.After(cutoff)
}

func retentionDetail(pol policy, from string) string {
	form := "form=" + pol.formID
	if pol.formID == "" {
		form = "records without a form"
	}
	return form + " retention=" + pol.retention + " from=" + from
}

func publicIDs(recs []tenants.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.PublicID
	}
	return out
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
