package api

import (
	"errors"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/gofiber/fiber/v2"
)

// intake runs the steps every record endpoint shares: decode the body, parse it by its kind's
// rules, check its form is open, ingest it. It returns the record's public id; a repeat is
// answered as the first attempt was.
func (s *server) intake(c *fiber.Ctx, kind tenants.Kind) (string, error) {
	body, err := decodeObject(c.Body())
	if err != nil {
		return "", err
	}
	return s.ingest(c, kind, body, nil)
}

// ingest parses body by its kind's rules and ingests it; beforeStore, when given, runs once
// the rules pass, just before the record is stored (a web form's challenge is spent there).
func (s *server) ingest(c *fiber.Ctx, kind tenants.Kind, body map[string]any, beforeStore func() error) (string, error) {
	a := authOf(c)
	d, vs := intake.ParseRecord(kind, body, s.Now(), a.tenant.DefaultCountry)
	var form *tenants.Form
	if d.FormID != "" {
		var err error
		if form, err = s.openForm(c, a.tenant.ID, d.FormID); err != nil {
			return "", err
		}
		if form == nil {
			vs = intake.FormUnknown(vs)
		}
	}
	if form != nil || d.FormID == "" {
		known, err := s.Ops.StampTexts(c.UserContext(), a.tenant.ID, form, &d)
		if err != nil {
			return "", err
		}
		if !known {
			vs = intake.TextVersionUnknown(vs)
		}
	}
	if err := s.doubleOptIn(c, a.tenant.ID, &d); err != nil {
		return "", err
	}
	if len(vs) == 0 && beforeStore != nil {
		if err := beforeStore(); err != nil {
			return "", err
		}
	}
	id, _, err := s.Ops.IngestDraft(linkCtx(c), a.tenant.ID, d, vs, a.actor, requestID(c))
	var refused tenants.Violations
	if errors.As(err, &refused) {
		return "", &refusedRecord{kind: kind, vs: refused}
	}
	return id, err
}

// openForm returns the tenant's form formID when it is open for submissions, nil when it is
// not or the tenant has none.
func (s *server) openForm(c *fiber.Ctx, tenantID, formID string) (*tenants.Form, error) {
	f, err := s.Forms.Get(c.UserContext(), tenantID, formID)
	if errors.Is(err, tenants.ErrNotFound) || (err == nil && !f.Open) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// refusedRecord is a record body the intake rules refused; the error handler renders it.
type refusedRecord struct {
	kind tenants.Kind
	vs   tenants.Violations
}

func (r *refusedRecord) Error() string { return r.vs.Error() }

// codesBody is the list body of accept-submission (docs/API.md §3.7): every failed code.
type codesBody struct {
	Codes []string `json:"errors"`
}

// body renders the refusedRecord: the list body for a form submission, else the single-error body
// of docs/API.md §6 — when the submission rules failed, the first code with every code in
// details; when an own field did, that field's violation.
func (r *refusedRecord) body() any {
	codes := intake.RuleCodes(r.kind, r.vs)
	if r.kind == tenants.KindFormSubmission {
		return codesBody{Codes: codes}
	}
	first := r.vs[0]
	if codes == nil {
		return violationError(first)
	}
	e := validation("The record failed validation: "+strings.Join(codes, ", ")+".", first.Field)
	e.Code = first.Code
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details["errors"] = codes
	return e
}

// violationError is the single-error body of one violation.
func violationError(v tenants.Violation) *Error {
	e := validation(v.Message, v.Field)
	e.Code = v.Code
	return e
}
