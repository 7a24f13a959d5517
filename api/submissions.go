package api

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// acceptSubmission is POST /api/v1/forms/accept-submission (docs/API.md §3): every
// failed rule listed, 200 with an empty body once stored; a repeated submission_id stores
// nothing and answers 200.
func (s *server) acceptSubmission(c *fiber.Ctx) error {
	rec, err := s.parseFormRecord(c, tenants.KindFormSubmission, nil)
	if errors.Is(err, errRepeat) {
		c.Set("X-Submission-Id", rec.PublicID)
		c.Status(fiber.StatusOK)
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := s.Ops.Ingest(c.Context(), rec, authOf(c).actor, requestID(c)); err != nil {
		return err
	}
	c.Set("X-Submission-Id", rec.PublicID)
	c.Status(fiber.StatusOK)
	return nil
}

// errRepeat reports a body whose submission_id is already stored: an idempotent repeat.
var errRepeat = errors.New("repeated submission")

// parseFormRecord validates a submission-shaped body and builds the record; the error is
// the list body of every failed code.
func (s *server) parseFormRecord(c *fiber.Ctx, kind tenants.Kind, extra []string) (tenants.Record, error) {
	body, err := decodeObject(c.Body())
	if err != nil {
		return tenants.Record{}, err
	}
	a := authOf(c)
	now := s.Now().UTC()
	sub, codes := consent.Validate(body, extra, now, consent.FormRules)
	if sub.FormID != "" && !slices.Contains(codes, "form_id_unknown") {
		open, err := s.formOpen(c, a.tenant.ID, sub.FormID)
		if err != nil {
			return tenants.Record{}, err
		}
		if !open {
			codes = append(codes, "form_id_unknown")
		}
	}
	rec := newRecord(a.tenant.ID, kind, sub, now)
	if ops.TooManyIdentifiers(rec) {
		codes = append(codes, consent.CodeTooManyIdentifiers)
	}
	if len(codes) > 0 {
		// A retry of a stored submission answers as the first try did, even if the form has
		// closed or a deadline passed since (docs/API.md §3.3: a repeated id answers 200).
		if sub.SubmissionID != "" && !slices.Contains(codes, "submission_id_invalid") {
			if _, err := s.Records.Get(c.Context(), a.tenant.ID, kind, sub.SubmissionID); err == nil {
				return rec, errRepeat
			}
		}
		consent.SortCodes(codes)
		return tenants.Record{}, &CodesError{Codes: codes}
	}
	return rec, nil
}

// formOpen reports whether the tenant has formID open for submissions.
func (s *server) formOpen(c *fiber.Ctx, tenantID, formID string) (bool, error) {
	f, err := s.Forms.Get(c.Context(), tenantID, formID)
	if errors.Is(err, tenants.ErrNotFound) {
		return false, nil
	}
	return err == nil && f.Open, err
}

func newRecord(tenantID string, kind tenants.Kind, sub consent.Submission, now time.Time) tenants.Record {
	id := sub.SubmissionID
	if id == "" {
		id = tenants.NewID("")
	}
	return tenants.Record{
		ID: tenants.RecordID(tenantID, kind, id), TenantID: tenantID, Kind: kind, PublicID: id, FormID: sub.FormID,
		CreatedAt: now, Contact: sub.Contact, Address: sub.Address, Consents: sub.Consents, Payload: sub.Payload, Fields: sub.Extra,
	}
}

// submissionView is the submission shape of docs/API.md §7.1.
type submissionView struct {
	SubmissionID string           `json:"submissionId"`
	FormID       string           `json:"formId"`
	CreatedAt    time.Time        `json:"createdAt"`
	Contact      tenants.Contact  `json:"contact"`
	Address      tenants.Address  `json:"address"`
	Consents     ops.ConsentsView `json:"consents"`
	Payload      map[string]any   `json:"payload"`
	AnonymisedAt *time.Time       `json:"anonymisedAt"`
}

// getSubmission is GET /api/v1/forms/submissions/{submission_id}.
func (s *server) getSubmission(c *fiber.Ctx) error {
	id := c.Params("id")
	rec, err := s.Records.Get(c.Context(), authOf(c).tenant.ID, tenants.KindFormSubmission, id)
	if errors.Is(err, tenants.ErrNotFound) {
		return notFound("No submission with this id.")
	}
	if err != nil {
		return err
	}
	v := submissionView{SubmissionID: rec.PublicID, FormID: rec.FormID, CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second),
		Contact: rec.Contact, Address: rec.Address, Consents: ops.ViewConsents(rec.Consents, s.Now()), Payload: rec.Payload}
	if v.Payload == nil {
		v.Payload = map[string]any{}
	}
	if rec.AnonymisedAt != nil {
		t := rec.AnonymisedAt.UTC().Truncate(time.Second)
		v.AnonymisedAt = &t
	}
	return c.JSON(v)
}

// getConsents is GET /api/v1/consents?email=|phone= (docs/API.md §7.2).
func (s *server) getConsents(c *fiber.Ctx) error {
	// An unencoded '+' in a query string reads as a space: "?phone=+4915..." must still work.
	phone := c.Query("phone")
	if strings.HasPrefix(phone, " ") {
		phone = "+" + strings.TrimLeft(phone, " ")
	}
	id, err := identity(c.Query("email"), phone, "email", "phone")
	if err != nil {
		return err
	}
	out, err := s.Ops.Consents(c.Context(), authOf(c).tenant.ID, id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// identity validates an e-mail and/or phone given by a client; the field names are the
// request's own, for the messages.
func identity(email, phone, emailField, phoneField string) (ops.Identity, error) {
	var id ops.Identity
	if email == "" && phone == "" {
		return id, validation("At least one of "+emailField+" or "+phoneField+" must be provided.", "")
	}
	if email != "" {
		e, ok := contact.NormaliseEmail(email)
		if !ok {
			return id, validation(emailField+" is not a valid e-mail address.", emailField)
		}
		id.Email = e
	}
	if phone != "" {
		p, ok := contact.NormalisePhone(phone)
		if !ok {
			return id, validation(phoneField+" is not a valid E.164 phone number.", phoneField)
		}
		id.Phone = p
	}
	return id, nil
}
