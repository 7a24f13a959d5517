package api

import (
	"context"
	"errors"
	"strings"

	"github.com/consentforms/consentforms/clientaddr"
	"github.com/consentforms/consentforms/tenants/ops"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/gofiber/fiber/v2"
)

// intake decodes a record body posted with a secret key and hands it to the one intake
// case. It returns the record's public id; a repeat is answered as the first attempt was.
func (s *server) intake(c *fiber.Ctx, kind tenants.Kind) (string, error) {
	body, err := decodeObject(c.Body())
	if err != nil {
		return "", err
	}
	return s.submit(c, kind, body, ops.WaySecretKey, nil)
}

// submit runs the intake case on a decoded body that came in by way; challenge, when given,
// checks the way's spam challenge once the rules pass. A refused body is rendered by kind.
func (s *server) submit(c *fiber.Ctx, kind tenants.Kind, body map[string]any, way ops.Way, challenge func(context.Context) error) (string, error) {
	a := authOf(c)
	got, err := s.Intake.Submit(c.UserContext(), ops.Submission{TenantID: a.tenant.ID, Country: a.tenant.DefaultCountry, Kind: kind,
		Body: body, Way: way, ClientIP: clientaddr.Of(c, s.webForms.proxies), Challenge: challenge, Actor: a.actor, RequestID: requestID(c)})
	var refused tenants.Violations
	if errors.As(err, &refused) {
		return "", &refusedRecord{kind: kind, vs: refused}
	}
	return got.ID, err
}

// openForm returns the tenant's form formID; open is false when it has none of that id or it
// is closed for submissions.
func (s *server) openForm(c *fiber.Ctx, tenantID, formID string) (tenants.Form, bool, error) {
	f, err := s.Forms.Get(c.UserContext(), tenantID, formID)
	if errors.Is(err, tenants.ErrNotFound) {
		return f, false, nil
	}
	return f, err == nil && f.Open, err
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
