package admin

import (
	"strconv"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

func (h *handler) tenants(c *fiber.Ctx, s *session) error {
	return h.renderTenants(c, s, fiber.StatusOK, web.TenantInput{}, nil)
}

func (h *handler) renderTenants(c *fiber.Ctx, s *session, status int, in web.TenantInput, errs web.FieldErrors) error {
	return h.renderTenantsWith(c, s, status, in, errs, web.TenantRetentionInput{}, nil)
}

// renderTenantsWith renders the tenants page with both of its forms as filled.
func (h *handler) renderTenantsWith(c *fiber.Ctx, s *session, status int, in web.TenantInput, errs web.FieldErrors,
	ret web.TenantRetentionInput, retErrs web.FieldErrors) error {
	list, err := h.Store.Tenants.List(c.UserContext())
	if err != nil {
		return err
	}
	items := make([]web.TenantItem, len(list))
	for i, t := range list {
		items[i] = web.TenantItem{ID: t.ID, Name: t.Name, RateLimit: t.Limit(), Suspended: !t.Active(), CreatedAt: t.CreatedAt,
			Retention: web.RetentionPhrase(t.Retention, t.RetentionFrom)}
	}
	return h.render(c, status, web.Tenants(web.TenantsPage{Layout: h.layout(c, s, "Tenants", web.NavTenants),
		Tenants: items, Form: in, Errors: errs, Retention: ret, RetentionErrors: retErrs}))
}

func (h *handler) tenantCreate(c *fiber.Ctx, s *session) error {
	in := web.TenantInput{Name: strings.TrimSpace(c.FormValue("name")), RateLimit: strings.TrimSpace(c.FormValue("rate_limit"))}
	rate := tenants.DefaultRateLimit
	if in.RateLimit != "" {
		rate, _ = strconv.Atoi(in.RateLimit) // not a whole number: 0, which is refused
	}
	t, err := h.provision().CreateTenant(c.UserContext(), by(c, s), provision.TenantInput{Name: in.Name, RateLimit: rate})
	if errs, ok := fieldErrors(err); ok {
		return h.renderTenants(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathTenants, success("Tenant “"+t.Name+"” created. Choose it under “Choose tenant” to work on it."))
}
