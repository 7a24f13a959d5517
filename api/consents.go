package api

import "github.com/gofiber/fiber/v2"

// searchConsents is POST /api/v1/consents/search with {email, phone}: the answer of GET
// /api/v1/consents, with the address in the body rather than the URL, so that it stays out
// of proxies' access logs (docs/API.md §7.2).
func (s *server) searchConsents(c *fiber.Ctx) error {
	id, err := bodyIdentity(c, "phone")
	if err != nil {
		return err
	}
	out, err := s.Persons.Consents(c.UserContext(), authOf(c).tenant.ID, id)
	if err != nil {
		return err
	}
	return c.JSON(viewPersonConsents(out))
}
