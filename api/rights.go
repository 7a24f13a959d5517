package api

import (
	"errors"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// exportPerson is POST /api/v1/gdpr/export (docs/API.md §5.5): the body follows the rules of
// search-and-anonymise.
func (s *server) exportPerson(c *fiber.Ctx) error {
	id, err := bodyIdentity(c, "phoneNumber")
	if err != nil {
		return err
	}
	out, err := s.Rights.Export(c.UserContext(), authOf(c).tenant.ID, authOf(c).actor, requestID(c), id)
	if err != nil {
		return err
	}
	return c.JSON(ExportView(out))
}

// The page sizes of the re-permission list.
const (
	defaultExpiringLimit = 100
	maxExpiringLimit     = 500
)

// expiring is GET /api/v1/consents/expiring (docs/API.md §7.3).
func (s *server) expiring(c *fiber.Ctx) error {
	r, vs := ops.ParseExpiring(c.Query("channel"), c.Query("form"), c.Query("within", "30d"), s.Now())
	if len(vs) > 0 {
		return validation(vs[0].Message, vs[0].Field)
	}
	r.Cursor, r.Limit = c.Query("cursor"), defaultExpiringLimit
	if l := c.Query("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxExpiringLimit {
			return validation("limit must be a whole number from 1 to 500.", "limit")
		}
		r.Limit = n
	}
	page, err := s.Rights.Expiring(c.UserContext(), authOf(c).tenant.ID, authOf(c).actor, requestID(c), r)
	if errors.Is(err, ops.ErrBadCursor) {
		return violationError(ops.BadCursor)
	}
	if err != nil {
		return err
	}
	// Every time the API answers with is to the second (docs/API.md §2).
	for i := range page.Items {
		page.Items[i].Deadline = page.Items[i].Deadline.UTC().Truncate(time.Second)
	}
	return c.JSON(viewExpiring(page))
}
