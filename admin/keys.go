package admin

import (
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

func (h *handler) keys(c *fiber.Ctx, s *session) error {
	return h.renderKeys(c, s, fiber.StatusOK, web.KeyInput{}, nil)
}

func (h *handler) renderKeys(c *fiber.Ctx, s *session, status int, in web.KeyInput, errs web.FieldErrors) error {
	list, err := h.Store.APIKeys.List(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	items := make([]web.KeyItem, len(list))
	for i, k := range list {
		items[i] = keyItem(k)
	}
	return h.render(c, status, web.Keys(web.KeysPage{Layout: h.layout(c, s, "API keys", web.NavKeys), Keys: items,
		Form: in, Errors: errs, CanManage: h.may(s, permKeysWrite), Now: h.now()}))
}

// keyIssue issues a key and shows its plaintext, this once.
func (h *handler) keyIssue(c *fiber.Ctx, s *session) error {
	in := web.KeyInput{Name: strings.TrimSpace(c.FormValue("name")), Expires: strings.TrimSpace(c.FormValue("expires")),
		Publishable: c.FormValue("publishable") != "", Forms: c.FormValue("forms"), Origins: c.FormValue("origins")}
	for _, v := range c.Request().PostArgs().PeekMulti("scope") {
		in.Scopes = append(in.Scopes, string(v))
	}
	expires, errs := validateKey(in, h.now())
	if len(errs) > 0 {
		return h.renderKeys(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	k, plain, err := h.provision().IssueKey(c.UserContext(), by(c, s), keyInput(s.TenantID, in, expires))
	if errs, ok := fieldErrors(err); ok {
		return h.renderKeys(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.KeyIssued(web.KeyIssuedPage{Layout: h.layout(c, s, "API key issued", web.NavKeys),
		Key: keyItem(k), Plaintext: plain}))
}

func keyInput(tenantID string, in web.KeyInput, expires *time.Time) provision.KeyInput {
	k := provision.KeyInput{TenantID: tenantID, Name: in.Name, Scopes: in.Scopes, ExpiresAt: expires}
	if in.Publishable {
		k.Publishable, k.Forms, k.Origins = true, listInput(in.Forms), listInput(in.Origins)
	}
	return k
}

// validateKey checks the issue form and returns the expiry: the end of the given day, UTC.
// A key issued here cannot expire in the past (the CLI may issue one that has, for tests of
// clients).
func validateKey(in web.KeyInput, now time.Time) (*time.Time, web.FieldErrors) {
	errs := addViolations(web.FieldErrors{}, provision.CheckKey(keyInput("", in, nil)))
	if in.Expires == "" {
		return nil, errs
	}
	d, err := time.Parse(time.DateOnly, in.Expires)
	if err != nil {
		errs["expires"] = "Give a date as YYYY-MM-DD."
		return nil, errs
	}
	end := d.Add(24 * time.Hour)
	if !end.After(now) {
		errs["expires"] = "Give a date that is not in the past."
	}
	return &end, errs
}

func (h *handler) keyRevoke(c *fiber.Ctx, s *session) error {
	id := pathID(c)
	err := h.provision().RevokeKey(c.UserContext(), by(c, s), s.TenantID, id)
	h.PurgeKey(id) // also when only the audit entry failed: the key is revoked
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathKeys, success("API key revoked."))
}

func keyItem(k tenants.APIKey) web.KeyItem {
	return web.KeyItem{ID: k.ID, Name: k.Name, Prefix: strings.TrimSuffix(k.Prefix(), "_"), Scopes: slices.Clone(k.Scopes),
		CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt,
		Publishable: k.Publishable, Forms: slices.Clone(k.Forms), Origins: slices.Clone(k.Origins)}
}

// listInput splits a field of items separated by commas, spaces or lines.
func listInput(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' || r == '\t' })
}
