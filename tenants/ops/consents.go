package ops

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// ConsentView is one consent as the API shows it: status at now and its times.
type ConsentView struct {
	Status    tenants.ConsentStatus
	Deadline  *time.Time
	GrantedAt *time.Time
	RevokedAt *time.Time
	// Text is the consent text version the consent was given under (nil: none).
	Text *tenants.TextRef
}

// ConsentsView is a record's three consents.
type ConsentsView struct {
	PrimaryPurpose      ConsentView
	GeneralContactEmail ConsentView
	GeneralContactPhone ConsentView
}

// ViewConsents renders a record's consents at now: a passed deadline reads expired at once.
func ViewConsents(c tenants.Consents, now time.Time) ConsentsView {
	v := func(c tenants.Consent) ConsentView {
		return ConsentView{Status: c.StatusAt(now), Deadline: utc(c.Deadline), GrantedAt: utc(c.GrantedAt), RevokedAt: utc(c.RevokedAt), Text: c.Text}
	}
	return ConsentsView{v(c.PrimaryPurpose), v(c.GeneralContactEmail), v(c.GeneralContactPhone)}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

// SubmissionConsents is one submission in a consent lookup.
type SubmissionConsents struct {
	SubmissionID string
	FormID       string
	CreatedAt    time.Time
	Consents     ConsentsView
}

// PersonConsents answers GET /api/v1/consents (docs/API.md §7.2).
type PersonConsents struct {
	GeneralContact struct {
		Email tenants.ConsentStatus
		Phone tenants.ConsentStatus
	}
	Submissions []SubmissionConsents
}

// Consents returns the consent state of the tenant's form submissions matching the identity.
func (s *Persons) Consents(ctx context.Context, tenantID string, id Identity) (PersonConsents, error) {
	recs, err := s.find(ctx, tenantID, id, tenants.KindFormSubmission)
	if err != nil {
		return PersonConsents{}, wrap("consents", err)
	}
	now := s.Now()
	out := PersonConsents{Submissions: []SubmissionConsents{}}
	var emails, phones []tenants.ConsentStatus
	for _, rec := range recs {
		v := ViewConsents(rec.Consents, now)
		emails = append(emails, v.GeneralContactEmail.Status)
		phones = append(phones, v.GeneralContactPhone.Status)
		out.Submissions = append(out.Submissions, SubmissionConsents{SubmissionID: rec.PublicID, FormID: rec.FormID,
			CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second), Consents: v})
	}
	out.GeneralContact.Email = Aggregate(emails)
	out.GeneralContact.Phone = Aggregate(phones)
	return out, nil
}

// Aggregate folds statuses: granted if any is granted and live, else revoked if any was
// revoked, else expired if any expired, else not_granted.
func Aggregate(statuses []tenants.ConsentStatus) tenants.ConsentStatus {
	for _, want := range []tenants.ConsentStatus{tenants.StatusGranted, tenants.StatusRevoked, tenants.StatusExpired} {
		for _, s := range statuses {
			if s == want {
				return want
			}
		}
	}
	return tenants.StatusNotGranted
}
