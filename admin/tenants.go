package admin

import (
	"crypto/rand"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// maxRateLimit bounds a tenant's per-key rate limit, as the CLI does.
const maxRateLimit = 1_000_000

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
	errs := web.FieldErrors{}
	if in.Name == "" || utf8.RuneCountInString(in.Name) > 200 {
		errs["name"] = "Give a name of at most 200 characters."
	}
	rate := tenants.DefaultRateLimit
	if in.RateLimit != "" {
		n, err := strconv.Atoi(in.RateLimit)
		if err != nil || n < 1 || n > maxRateLimit {
			errs["rate_limit"] = "Give a whole number from 1 to 1000000."
		}
		rate = n
	}
	if len(errs) > 0 {
		return h.renderTenants(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	t := tenants.Tenant{ID: newID("t_"), Name: in.Name, Status: tenants.TenantActive, RateLimit: rate, CreatedAt: h.now()}
	if err := h.Store.Tenants.Insert(c.UserContext(), t); err != nil {
		return err
	}
	err := h.Store.Audit.Append(c.UserContext(), tenants.AuditEntry{Time: h.now(), TenantID: t.ID, Actor: actor(s),
		Action: tenants.ActionTenantCreated, RecordIDs: []string{t.ID}, RequestID: requestID(c)})
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathTenants, success("Tenant “"+t.Name+"” created. Choose it under “Choose tenant” to work on it."))
}

// newID is prefix and 16 random base32 characters (80 bits), the CLI's id format.
func newID(prefix string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	out := []byte(prefix)
	for _, x := range b {
		out = append(out, alphabet[x&31])
	}
	return string(out)
}
