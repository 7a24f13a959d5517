package ops

import (
	"context"
	"errors"
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

// retentionBatch is how many records one erasure of the retention job anonymises: each batch
// holds the store's writer while it runs, and intake waits for it.
const retentionBatch = 100

// RetentionWindow is how far ahead the admin form page counts what retention will anonymise.
const RetentionWindow = 30 * 24 * time.Hour

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
func (s *Service) RunRetention(ctx context.Context) (tenants.Counts, error) {
	ts, err := s.Catalogue.ListTenants(ctx)
	if err != nil {
		return tenants.Counts{}, wrap("retention", err)
	}
	var total tenants.Counts
	var errs []error
	for _, t := range ts {
		policies := []policy{}
		if t.Retention != "" {
			policies = append(policies, policy{tenantID: t.ID, retention: t.Retention, from: t.RetentionFrom})
		}
		forms, err := s.Catalogue.ListForms(ctx, t.ID)
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
		for _, p := range policies {
			n, err := s.retain(ctx, p)
			total = total.Plus(n)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return total, wrap("retention", errors.Join(errs...))
}

// retain anonymises the records of one policy that are due.
func (s *Service) retain(ctx context.Context, p policy) (tenants.Counts, error) {
	iv, from, err := consent.ParseRetention(p.retention, p.from)
	if err != nil {
		return tenants.Counts{}, err
	}
	now := s.Now().UTC()
	cutoff := iv.Before(now)
	country, err := s.country(ctx, p.tenantID)
	if err != nil {
		return tenants.Counts{}, err
	}
	forms := map[string]map[string]bool{}
	var total tenants.Counts
	for {
		started := time.Now()
		due, err := s.Rights.Due(ctx, p.tenantID, tenants.DueQuery{FormID: p.formID, From: from, Before: cutoff, Limit: retentionBatch})
		if err != nil || len(due) == 0 {
			return total, err
		}
		ids := make([]string, len(due))
		for i, r := range due {
			ids[i] = r.ID
		}
		erased, err := s.Writer.Erase(ctx, tenants.Change{TenantID: p.tenantID, RecordIDs: ids,
			Apply: func(rec *tenants.Record) (bool, error) {
				// Read again inside the erasure: a record anonymised or given a new consent since is left.
				if rec.AnonymisedAt != nil || !dueAt(*rec, from, cutoff) {
					return false, nil
				}
				declared, err := s.declared(ctx, p.tenantID, rec.FormID, forms)
				if err != nil {
					return false, err
				}
				*rec = anonymise.StripIn(*rec, declared, country, now)
				return true, nil
			},
			Audit: func(erased []tenants.Record) []tenants.AuditEntry {
				return []tenants.AuditEntry{{Time: now, TenantID: p.tenantID, Actor: tenants.ActorSystem, Action: tenants.ActionRetentionAnonymised,
					RecordIDs: publicIDs(erased), Counts: tenants.CountKinds(erased).Map(), Detail: retentionDetail(p, from)}}
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
		// The job is in no hurry: it leaves the writer to intake for as long as a batch took.
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(time.Since(started)):
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

func retentionDetail(p policy, from string) string {
	form := "form=" + p.formID
	if p.formID == "" {
		form = "records without a form"
	}
	return form + " retention=" + p.retention + " from=" + from
}

// RetentionPreview counts the form's records (formID "": the tenant's records of no form) that
// a retention of retention counted from from anonymises within RetentionWindow from now.
func (s *Service) RetentionPreview(ctx context.Context, tenantID, formID, retention, from string) (int64, error) {
	iv, from, err := consent.ParseRetention(retention, from)
	if err != nil || retention == "" {
		return 0, err
	}
	n, err := s.Rights.CountDue(ctx, tenantID, tenants.DueQuery{FormID: formID, From: from, Before: iv.Before(s.Now().UTC().Add(RetentionWindow))})
	return n, wrap("retention preview", err)
}
