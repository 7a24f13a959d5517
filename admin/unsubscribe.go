package admin

import (
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Manual unsubscribe revokes both general-contact consents of a person through
// ops.Persons, as the providers' webhooks do, recorded as revoked via "admin".

func (h *handler) unsubscribePage(c *fiber.Ctx, s *session) error {
	return h.render(c, fiber.StatusOK, web.Unsubscribe(web.UnsubscribePage{Layout: h.layout(c, s, "Unsubscribe", web.NavUnsubscribe)}))
}

func (h *handler) unsubscribe(c *fiber.Ctx, s *session) error {
	email, phone := personInput(c)
	p := web.UnsubscribePage{Layout: h.layout(c, s, "Unsubscribe", web.NavUnsubscribe), Email: email, Phone: phone}
	id, errs := h.identity(c, s, email, phone)
	if len(errs) > 0 {
		p.Errors = errs
		return h.invalid(c, web.Unsubscribe(p))
	}
	n, err := h.Persons.Unsubscribe(c.UserContext(), s.TenantID, actor(s), "admin", requestID(c), id)
	if err != nil {
		return err
	}
	p.Result = &web.UnsubscribeResult{Revoked: n}
	return h.render(c, fiber.StatusOK, web.Unsubscribe(p))
}
