package admin

import (
	"errors"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// A platform admin belongs to no tenant: the tenant it works on is chosen here and kept in
// its session token (claim "ten"), checked against the store on every request.

// chooseSearchFrom is the number of tenants from which the list can be searched by name.
const chooseSearchFrom = 11

func (h *handler) chooseTenantPage(c *fiber.Ctx, s *session) error {
	return h.renderChoose(c, s, fiber.StatusOK, false, safeNext(c.Query("next")), "")
}

// tenantPrompt stands in for a tenant page while a platform admin has chosen no tenant.
func (h *handler) tenantPrompt(c *fiber.Ctx, s *session) error {
	next := ""
	if c.Method() == fiber.MethodGet {
		next = safeNext(c.OriginalURL())
	}
	return h.renderChoose(c, s, fiber.StatusOK, true, next, "")
}

func (h *handler) renderChoose(c *fiber.Ctx, s *session, status int, prompt bool, next, errMsg string) error {
	list, err := h.Store.Tenants.List(c.UserContext())
	if err != nil {
		return err
	}
	// Nothing is preselected, not even the current tenant: the choice is always made, not taken.
	p := web.ChoosePage{Layout: h.layout(c, s, "Choose a tenant", "tenant"), Next: next, Prompt: prompt,
		Total: len(list), Searchable: len(list) >= chooseSearchFrom, Error: errMsg}
	if p.Searchable {
		p.Query = strings.TrimSpace(c.Query("q"))
	}
	q := strings.ToLower(p.Query)
	for _, t := range list {
		if q != "" && !strings.Contains(strings.ToLower(t.Name), q) && !strings.Contains(t.ID, q) {
			continue
		}
		label := t.Name + " (" + t.ID + ")"
		if t.ID == s.TenantID {
			label += " — current"
		}
		p.Tenants = append(p.Tenants, web.Option{Value: t.ID, Label: label})
	}
	return h.render(c, status, web.ChooseTenant(p))
}

func (h *handler) chooseTenant(c *fiber.Ctx, s *session) error {
	t, err := h.Store.Tenants.Get(c.UserContext(), c.FormValue("tenant"))
	if errors.Is(err, tenants.ErrNotFound) {
		return h.renderChoose(c, s, fiber.StatusUnprocessableEntity, false, safeNext(c.FormValue("next")),
			"Choose a tenant from the list.")
	}
	if err != nil {
		return err
	}
	cl := s.claims
	cl.Tenant = t.ID
	if err := h.setSession(c, cl, h.Now()); err != nil {
		return err
	}
	next := safeNext(c.FormValue("next"))
	if next == "" {
		next = web.PathDashboard
	}
	return h.redirect(c, next, success("You are working on "+t.Name+"."))
}

// safeNext keeps a return path only when it is one of ours: no other host, no scheme.
func safeNext(p string) string {
	if !strings.HasPrefix(p, "/admin/") || strings.ContainsAny(p, "\\\r\n") || strings.HasPrefix(p, "//") ||
		strings.HasPrefix(p, web.PathLogin) || strings.HasPrefix(p, web.PathChooseTenant) || len(p) > 1000 {
		return ""
	}
	return p
}
