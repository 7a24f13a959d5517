package api

import (
	"errors"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// The ingestion endpoints of the three other record types (docs/API.md §6): 201 {"id"},
// 400 single-error bodies.

// postDigitisation stores a paper form typed in: the accept-submission body and rules plus
// document_ref and digitised_by.
func (s *server) postDigitisation(c *fiber.Ctx) error {
	rec, err := s.parseFormRecord(c, tenants.KindDigitisation, []string{"document_ref", "digitised_by"})
	if errors.Is(err, errRepeat) {
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": rec.PublicID})
	}
	var ce *CodesError
	if errors.As(err, &ce) {
		return codesToSingle(ce.Codes)
	}
	if err != nil {
		return err
	}
	if err := ops.CheckStrings(rec.Fields, "document_ref", "digitised_by"); err != nil {
		return recordError(err)
	}
	return s.storeRecord(c, rec)
}

// postCanvassing stores a door-to-door visit; consents are optional and checked when given.
func (s *server) postCanvassing(c *fiber.Ctx) error {
	body, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	a := authOf(c)
	now := s.Now().UTC()
	sub, codes := consent.Validate(body, ops.CanvassingFields, now, consent.OptionalRules)
	// Like every submission rule set, all failed codes are reported, form_id_unknown included.
	if sub.FormID != "" && !slices.Contains(codes, "form_id_unknown") {
		open, err := s.formOpen(c, a.tenant.ID, sub.FormID)
		if err != nil {
			return err
		}
		if !open {
			codes = append(codes, "form_id_unknown")
		}
	}
	rec := newRecord(a.tenant.ID, tenants.KindCanvassing, sub, now)
	if ops.TooManyIdentifiers(rec) {
		codes = append(codes, consent.CodeTooManyIdentifiers)
	}
	if len(codes) > 0 {
		return codesToSingle(codes)
	}
	if err := ops.CheckCanvassing(sub.Extra); err != nil {
		return recordError(err)
	}
	return s.storeRecord(c, rec)
}

// postPhoneCallTask stores a phone-bank call; phone_number is required.
func (s *server) postPhoneCallTask(c *fiber.Ctx) error {
	body, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	a := authOf(c)
	now := s.Now().UTC()
	task, err := ops.ParsePhoneCallTask(body)
	if err != nil {
		return recordError(err)
	}
	rec := tenants.Record{TenantID: a.tenant.ID, Kind: tenants.KindPhoneCallTask, PublicID: tenants.NewID(""), CreatedAt: now,
		Contact: task.Contact, Payload: task.Payload, Fields: task.Fields}
	rec.ID = tenants.RecordID(rec.TenantID, rec.Kind, rec.PublicID)
	return s.storeRecord(c, rec)
}

// storeRecord stores a record of the other kinds: 201 with its id, also for a repeat.
func (s *server) storeRecord(c *fiber.Ctx, rec tenants.Record) error {
	if _, err := s.Ops.Ingest(c.Context(), rec, authOf(c).actor, requestID(c)); err != nil {
		return recordError(err)
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": rec.PublicID})
}

// codesToSingle renders the submission rules' codes as one single-error body: the first
// code, with every code in details.
func codesToSingle(codes []string) error {
	consent.SortCodes(codes)
	field := codes[0]
	for _, suffix := range []string{"_missing", "_invalid", "_declined", "_unknown"} {
		field = strings.TrimSuffix(field, suffix)
	}
	if codes[0] == consent.CodeTooManyIdentifiers {
		field = "" // the whole record, no one field
	}
	e := validation("The record failed validation: "+strings.Join(codes, ", ")+".", field)
	e.Code = codes[0]
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details["errors"] = codes
	return e
}

func recordError(err error) error {
	var fe *ops.FieldError
	if errors.As(err, &fe) {
		e := validation(fe.Message, fe.Field)
		e.Code = fe.Code
		return e
	}
	return err
}
