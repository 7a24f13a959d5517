package admin

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// maxFieldRows bounds the custom field rows one post may carry.
const maxFieldRows = 200

func (h *handler) forms(c *fiber.Ctx, s *session) error {
	list, err := h.Store.Forms.List(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	items := make([]web.FormItem, len(list))
	for i, f := range list {
		items[i] = web.FormItem{ID: f.FormID, Name: f.Name, Open: f.Open, FieldCount: len(f.Fields), CreatedAt: f.CreatedAt}
	}
	return h.render(c, fiber.StatusOK, web.Forms(web.FormsPage{Layout: h.layout(c, s, "Forms", web.NavForms),
		Forms: items, CanEdit: h.Enforcer.RoleAllows(s.Staff.Role, "admin:forms", "write")}))
}

func (h *handler) formNew(c *fiber.Ctx, s *session) error {
	return h.render(c, fiber.StatusOK, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "New form", web.NavForms),
		New: true, Form: web.FormInput{Open: true}, CanEdit: true}))
}

func (h *handler) formCreate(c *fiber.Ctx, s *session) error {
	in := readFormInput(c, c.FormValue("form_id"))
	page := func(errs web.FieldErrors) error {
		return h.invalid(c, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "New form", web.NavForms),
			New: true, Form: in, Errors: errs, CanEdit: true}))
	}
	if errs := validateForm(in); len(errs) > 0 {
		return page(errs)
	}
	now := h.now()
	f := tenants.Form{TenantID: s.TenantID, FormID: in.ID, Name: in.Name, Open: in.Open, Fields: fieldDefs(in.Fields),
		CreatedAt: now, UpdatedAt: now}
	f.Retention, f.RetentionFrom = retentionOf(in)
	err := h.Store.Forms.Insert(c.UserContext(), f)
	if errors.Is(err, tenants.ErrConflict) {
		return page(web.FieldErrors{"form_id": "A form with this id exists already."})
	}
	if err != nil {
		return err
	}
	h.PurgeForm(s.TenantID, f.FormID)
	if err := h.appendAudit(c, s, tenants.ActionFormChanged, []string{f.FormID}, "created"); err != nil {
		return err
	}
	return h.redirect(c, web.FormPath(f.FormID), success("Form created."))
}

func (h *handler) formEdit(c *fiber.Ctx, s *session) error {
	f, err := h.Store.Forms.Get(c.UserContext(), s.TenantID, pathID(c))
	if err != nil {
		return err
	}
	due, err := h.retentionDue(c, s, f)
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "Form "+f.FormID, web.NavForms),
		Form: formInput(f), CanEdit: h.Enforcer.RoleAllows(s.Staff.Role, "admin:forms", "write"),
		Webhooks: h.providerWebhooks(c, s), RetentionDue: due}))
}

func (h *handler) formSave(c *fiber.Ctx, s *session) error {
	f, err := h.Store.Forms.Get(c.UserContext(), s.TenantID, pathID(c))
	if err != nil {
		return err
	}
	in := readFormInput(c, f.FormID)
	if errs := validateForm(in); len(errs) > 0 {
		return h.invalid(c, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "Form "+f.FormID, web.NavForms),
			Form: in, Errors: errs, CanEdit: true, Webhooks: h.providerWebhooks(c, s)}))
	}
	f.Name, f.Open, f.Fields, f.UpdatedAt = in.Name, in.Open, fieldDefs(in.Fields), h.now()
	f.Retention, f.RetentionFrom = retentionOf(in)
	if err := h.Store.Forms.Save(c.UserContext(), f); err != nil {
		return err
	}
	h.PurgeForm(s.TenantID, f.FormID)
	if err := h.appendAudit(c, s, tenants.ActionFormChanged, []string{f.FormID}, "saved"); err != nil {
		return err
	}
	return h.redirect(c, web.FormPath(f.FormID), success("Form saved."))
}

// providerWebhooks are the tenant's unsubscribe webhook URLs; SendGrid's signed webhook
// names the tenant in the URL.
func (h *handler) providerWebhooks(c *fiber.Ctx, s *session) []web.ProviderWebhook {
	hooks := web.ProviderWebhooks(baseURL(c))
	for i := range hooks {
		if hooks[i].Provider == "sendgrid" {
			hooks[i].URL = sendGridURL(c, s.TenantID)
		}
	}
	return hooks
}

func sendGridURL(c *fiber.Ctx, tenantID string) string {
	return baseURL(c) + "/api/v1/sendgrid/unsubscribe?tenant=" + url.QueryEscape(tenantID)
}

// readFormInput decodes the posted definition; blank custom field rows are dropped, so row
// numbers in errors refer to the rows shown again.
func readFormInput(c *fiber.Ctx, id string) web.FormInput {
	in := web.FormInput{ID: strings.TrimSpace(id), Name: strings.TrimSpace(c.FormValue("name")), Open: c.FormValue("open") == "on",
		Retention: strings.TrimSpace(c.FormValue("retention")), RetentionFrom: c.FormValue("retention_from")}
	n, _ := strconv.Atoi(c.FormValue("field_count"))
	for i := range min(max(n, 0), maxFieldRows) {
		p := "field." + strconv.Itoa(i) + "."
		name := strings.TrimSpace(c.FormValue(p + "name"))
		if name == "" {
			continue
		}
		in.Fields = append(in.Fields, web.CustomField{Name: name, Type: c.FormValue(p + "type"), Personal: c.FormValue(p+"personal") == "on"})
	}
	return in
}

// validateForm checks a definition; keys are the input names of web.FormEditPage.
func validateForm(in web.FormInput) web.FieldErrors {
	errs := web.FieldErrors{}
	if !tenants.ValidFormID(in.ID) {
		errs["form_id"] = "Use 1 to 128 characters: letters, digits, and . _ : -"
	}
	if utf8.RuneCountInString(in.Name) > 200 {
		errs["name"] = "Use at most 200 characters."
	}
	retentionErrors(in.Retention, in.RetentionFrom, errs)
	seen := map[string]bool{}
	for i, f := range in.Fields {
		name := "field." + strconv.Itoa(i) + ".name"
		switch {
		case utf8.RuneCountInString(f.Name) > 128 || strings.IndexFunc(f.Name, unicode.IsControl) >= 0:
			errs[name] = "Use at most 128 printable characters."
		case seen[f.Name]:
			errs[name] = "Another field has this name."
		}
		seen[f.Name] = true
		if !slices.Contains(tenants.FieldTypes, f.Type) {
			errs["field."+strconv.Itoa(i)+".type"] = "Choose a type."
		}
	}
	return errs
}

func fieldDefs(fields []web.CustomField) []tenants.FieldDef {
	out := make([]tenants.FieldDef, len(fields))
	for i, f := range fields {
		out[i] = tenants.FieldDef{Name: f.Name, Type: f.Type, Personal: f.Personal}
	}
	return out
}

func formInput(f tenants.Form) web.FormInput {
	in := web.FormInput{ID: f.FormID, Name: f.Name, Open: f.Open, Retention: f.Retention, RetentionFrom: f.RetentionFrom}
	for _, d := range f.Fields {
		in.Fields = append(in.Fields, web.CustomField{Name: d.Name, Type: d.Type, Personal: d.Personal})
	}
	return in
}

// pathID is the route's :id, unescaped (ids may hold characters a URL escapes).
func pathID(c *fiber.Ctx) string {
	id, err := url.PathUnescape(c.Params("id"))
	if err != nil {
		return ""
	}
	return id
}
