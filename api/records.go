package api

import (
	"github.com/consentforms/consentforms/tenants"
	"github.com/gofiber/fiber/v2"
)

// The ingestion endpoints of the three other record types (docs/API.md §6): 201 {"id"}, also
// for a repeat; 400 single-error bodies.

// postDigitisation stores a paper form typed in: the accept-submission body and rules plus
// document_ref and digitised_by.
func (s *server) postDigitisation(c *fiber.Ctx) error {
	return s.createRecord(c, tenants.KindDigitisation)
}

// postCanvassing stores a door-to-door visit; consents are optional and checked when given.
func (s *server) postCanvassing(c *fiber.Ctx) error {
	return s.createRecord(c, tenants.KindCanvassing)
}

// postPhoneCallTask stores a phone-bank call; phone_number is required.
func (s *server) postPhoneCallTask(c *fiber.Ctx) error {
	return s.createRecord(c, tenants.KindPhoneCallTask)
}

// createRecord ingests a record of kind and answers 201 with its id.
func (s *server) createRecord(c *fiber.Ctx, kind tenants.Kind) error {
	id, err := s.intake(c, kind)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": id})
}
