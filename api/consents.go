package api

import "github.com/gofiber/fiber/v2"

// searchConsents is POST /api/v1/consents/search with {email, phone}: the answer of GET
// /api/v1/consents, with the address in the body rather than the URL, so that it stays out
// of proxies' access logs (docs/API.md §7.2).
func (s *server) searchConsents(c *fiber.Ctx) error {
	body, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	email, err := optionalString(body, "email")
	if err != nil {
		return err
	}
	phone, err := optionalString(body, "phone")
	if err != nil {
		return err
	}
	id, err := identity(email, phone, "email", "phone")
	if err != nil {
		return err
	}
	out, err := s.Ops.Consents(c.Context(), authOf(c).tenant.ID, id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
