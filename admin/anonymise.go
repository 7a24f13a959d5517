package admin

import (
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Anonymisation runs through ops.Persons, the code path of the API: search → preview of the
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
	ctx := c.UserContext()
	own, mentions, err := h.Persons.FindPerson(ctx, s.TenantID, id)
	if err != nil {
		return err
	}
	names, err := h.formNames(ctx, s.TenantID)
	if err != nil {
		return err
	}
	p := web.AnonymisePreviewPage{Layout: h.layout(c, s, "Anonymise: review", web.NavAnonymise), Email: email, Phone: phone,
		Counts: recordCounts(tenants.CountKinds(own)), Mentions: len(mentions), Errors: errs, CanExport: h.may(s, permGDPRExport)}
	for _, r := range own[:min(len(own), web.FindPersonShown)] {
		p.Records = append(p.Records, previewRecord(r, names, true))
	}
	for _, r := range mentions[:min(len(mentions), web.FindPersonShown)] {
		p.MentionRecords = append(p.MentionRecords, previewRecord(r, names, false))
	}
	return h.render(c, status, web.AnonymisePreview(p))
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
	done, err := h.Persons.Erase(c.UserContext(), s.TenantID, actor(s), requestID(c), id)
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

// previewRecord is a record an erasure will touch; contact data only for the person's own.
func previewRecord(r tenants.Record, names map[string]string, own bool) web.PreviewRecord {
	p := web.PreviewRecord{Kind: string(r.Kind), ID: r.PublicID, FormID: r.FormID, FormName: names[r.FormID], CreatedAt: r.CreatedAt}
	if own {
		p.Email, p.Phone = str(r.Contact.Email), str(r.Contact.PhoneNumber)
	}
	return p
}
