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
	return h.renderTenantsPage(c, s, status, web.TenantsPage{Form: in, Errors: errs, Retention: ret, RetentionErrors: retErrs})
}

// renderTenantsPage renders the tenants page with the forms of p as filled.
func (h *handler) renderTenantsPage(c *fiber.Ctx, s *session, status int, p web.TenantsPage) error {
	list, err := h.Store.Tenants.List(c.UserContext())
	if err != nil {
		return err
	}
	p.Tenants = make([]web.TenantItem, len(list))
	for i, t := range list {
		p.Tenants[i] = web.TenantItem{ID: t.ID, Name: t.Name, RateLimit: t.Limit(), Suspended: !t.Active(), CreatedAt: t.CreatedAt,
			Retention: web.RetentionPhrase(t.Retention, t.RetentionFrom), DefaultCountry: t.DefaultCountry}
	}
	p.Layout = h.layout(c, s, "Tenants", web.NavTenants)
	return h.render(c, status, web.Tenants(p))
}

// tenantCountry saves a tenant's default country (platform admins): national phone numbers of
// its volunteers' records and lookups are read in it.
func (h *handler) tenantCountry(c *fiber.Ctx, s *session) error {
	in := web.TenantCountryInput{TenantID: c.FormValue("tenant"), Country: strings.TrimSpace(c.FormValue("default_country"))}
	t, err := h.provision().SetDefaultCountry(c.UserContext(), by(c, s), in.TenantID, in.Country)
	if errs, ok := fieldErrors(err); ok {
		return h.renderTenantsPage(c, s, fiber.StatusUnprocessableEntity, web.TenantsPage{Country: in, CountryErrors: errs})
	}
	h.PurgeTenant(in.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathTenants, success("Default country of “"+t.Name+"” saved."))
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
