package admin

import (
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Anonymisation runs through ops.Service, the code path of the API: search → preview of the
// counts → confirmation by typing web.AnonymiseConfirmWord → erasure.

func (h *handler) anonymiseSearch(c *fiber.Ctx, s *session) error {
	return h.render(c, fiber.StatusOK, web.AnonymiseSearch(web.AnonymiseSearchPage{
		Layout: h.layout(c, s, "Anonymise", web.NavAnonymise)}))
}

func (h *handler) anonymisePreview(c *fiber.Ctx, s *session) error {
	email, phone := personInput(c)
	id, errs := h.identity(c, s, email, phone)
	if len(errs) > 0 {
		return h.invalid(c, web.AnonymiseSearch(web.AnonymiseSearchPage{Layout: h.layout(c, s, "Anonymise", web.NavAnonymise),
			Email: email, Phone: phone, Errors: errs}))
	}
	return h.renderPreview(c, s, fiber.StatusOK, email, phone, id, nil)
}

func (h *handler) renderPreview(c *fiber.Ctx, s *session, status int, email, phone string, id ops.Identity, errs web.FieldErrors) error {
	p, err := h.Ops.Preview(c.UserContext(), s.TenantID, id)
	if err != nil {
		return err
	}
	return h.render(c, status, web.AnonymisePreview(web.AnonymisePreviewPage{
		Layout: h.layout(c, s, "Anonymise: review", web.NavAnonymise), Email: email, Phone: phone,
		Counts: recordCounts(p.Counts), Mentions: p.RemovedMentions, Errors: errs, CanExport: h.may(s, permGDPRExport)}))
}

func (h *handler) anonymise(c *fiber.Ctx, s *session) error {
	email, phone := personInput(c)
	id, errs := h.identity(c, s, email, phone)
	if len(errs) > 0 {
		return h.invalid(c, web.AnonymiseSearch(web.AnonymiseSearchPage{Layout: h.layout(c, s, "Anonymise", web.NavAnonymise),
			Email: email, Phone: phone, Errors: errs}))
	}
	if strings.TrimSpace(c.FormValue("confirm")) != web.AnonymiseConfirmWord {
		return h.renderPreview(c, s, fiber.StatusUnprocessableEntity, email, phone, id,
			web.FieldErrors{"confirm": "Type " + web.AnonymiseConfirmWord + " in capitals to confirm."})
	}
	done, err := h.Ops.Erase(c.UserContext(), s.TenantID, actor(s), requestID(c), id)
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.AnonymiseResult(web.AnonymiseResultPage{
		Layout: h.layout(c, s, "Anonymised", web.NavAnonymise), Counts: recordCounts(done.Counts), RemovedMentions: done.RemovedMentions}))
}

func personInput(c *fiber.Ctx) (email, phone string) {
	return strings.TrimSpace(c.FormValue("email")), strings.TrimSpace(c.FormValue("phone"))
}

// identity normalises a person's e-mail and phone as the API does (national numbers in the
// tenant's default country); errors are keyed by input.
func (h *handler) identity(c *fiber.Ctx, s *session, email, phone string) (ops.Identity, web.FieldErrors) {
	id, vs := ops.NewIdentity(email, phone, h.country(c, s))
	return id, addViolations(web.FieldErrors{}, vs)
}

// country is the default country of the session's tenant ("" when it has none or cannot be read:
// national numbers are then refused, which the form says).
func (h *handler) country(c *fiber.Ctx, s *session) string {
	t, err := h.Store.Tenants.Get(c.UserContext(), s.TenantID)
	if err != nil {
		return ""
	}
	return t.DefaultCountry
}

// recordCounts is the view of counts per kind.
func recordCounts(c tenants.Counts) web.RecordCounts {
	return web.RecordCounts{FormSubmissions: c.FormSubmissions, DigitisationSubmissions: c.DigitisationSubmissions,
		CanvassingSubmissions: c.CanvassingSubmissions, PhoneCallTasks: c.PhoneCallTasks}
}
