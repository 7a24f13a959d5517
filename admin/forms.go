package admin

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

func (h *handler) forms(c *fiber.Ctx, s *session) error {
	list, err := h.Store.Forms.List(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	items := formItems(list)
	t, err := h.Store.Tenants.Get(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	id := t.Identity
	return h.render(c, fiber.StatusOK, web.Forms(web.FormsPage{Layout: h.layout(c, s, "Forms", web.NavForms),
		Forms: items, CanEdit: h.may(s, permFormsWrite), Identity: web.OrganisationIdentity{LegalName: id.LegalName,
			ContactEmail: id.ContactEmail, PrivacyURL: id.PrivacyURL, Address: id.Address, Jurisdiction: id.Jurisdiction}}))
}

// formItems are the forms as the Forms page lists them.
func formItems(list []tenants.Form) []web.FormItem {
	items := make([]web.FormItem, len(list))
	for i, f := range list {
		items[i] = web.FormItem{ID: f.FormID, Name: f.Name, Open: f.Open, FieldCount: len(f.Fields), CreatedAt: f.CreatedAt}
	}
	return items
}

// organisationSave sets the organisation's identity as the Forms page's form gives it (every
// field; an empty one clears it); a refusal shows the page again with what was typed.
func (h *handler) organisationSave(c *fiber.Ctx, s *session) error {
	typed := web.OrganisationIdentity{LegalName: c.FormValue("legal_name"), ContactEmail: c.FormValue("contact_email"),
		PrivacyURL: c.FormValue("privacy_url"), Address: c.FormValue("address"), Jurisdiction: c.FormValue("jurisdiction")}
	_, err := h.provision().SetIdentity(c.UserContext(), by(c, s), s.TenantID, provision.IdentityChange{LegalName: &typed.LegalName,
		ContactEmail: &typed.ContactEmail, PrivacyURL: &typed.PrivacyURL, Address: &typed.Address, Jurisdiction: &typed.Jurisdiction})
	if errs, ok := fieldErrors(err); ok {
		list, lerr := h.Store.Forms.List(c.UserContext(), s.TenantID)
		if lerr != nil {
			return lerr
		}
		return h.invalid(c, web.Forms(web.FormsPage{Layout: h.layout(c, s, "Forms", web.NavForms), Forms: formItems(list), CanEdit: true,
			Identity: typed, IdentityErrors: errs}))
	}
	h.PurgeTenant(s.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathForms, success("Organisation saved: people see it on your pages and receipts."))
}

func (h *handler) formNew(c *fiber.Ctx, s *session) error {
	return h.render(c, fiber.StatusOK, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "New form", web.NavForms),
		New: true, Form: web.FormInput{Open: true}, CanEdit: true}))
}

func (h *handler) formCreate(c *fiber.Ctx, s *session) error {
	in := readFormInput(c, c.FormValue("form_id"))
	f, err := h.provision().CreateForm(c.UserContext(), by(c, s), formDef(s.TenantID, in))
	if errs, ok := fieldErrors(err); ok {
		return h.invalid(c, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "New form", web.NavForms),
			New: true, Form: in, Errors: errs, CanEdit: true}))
	}
	h.PurgeForm(s.TenantID, in.ID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.FormPath(f.FormID), success("Form created."))
}

func (h *handler) formEdit(c *fiber.Ctx, s *session) error {
	f, err := h.Store.Forms.Get(c.UserContext(), s.TenantID, pathID(c))
	if err != nil {
		return err
	}
	var due *int64 // none without a retention
	if f.Retention != "" {
		if due, err = h.retentionDue(c, s, f); err != nil {
			return err
		}
	}
	list, texts, err := h.textVersions(c, s.TenantID, f.FormID)
	if err != nil {
		return err
	}
	org := ""
	if t, err := h.Store.Tenants.Get(c.UserContext(), s.TenantID); err == nil {
		org = t.Name
	}
	arriving, err := h.arrivingFields(c, s, f)
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "Form "+f.FormID, web.NavForms),
		Form: formInput(f), CanEdit: h.may(s, permFormsWrite), Arriving: arriving,
		Webhooks: h.providerWebhooks(c, s), RetentionDue: due, Texts: texts, Embed: web.EmbedFor(h.baseURL(c), s.TenantID, org, f, tenants.CurrentSet(list, f.Language))}))
}

func (h *handler) formSave(c *fiber.Ctx, s *session) error {
	in := readFormInput(c, pathID(c))
	f, err := h.provision().SaveForm(c.UserContext(), by(c, s), formDef(s.TenantID, in))
	if errs, ok := fieldErrors(err); ok {
		return h.invalid(c, web.FormEdit(web.FormEditPage{Layout: h.layout(c, s, "Form "+in.ID, web.NavForms),
			Form: in, Errors: errs, CanEdit: true, Webhooks: h.providerWebhooks(c, s)}))
	}
	if err != nil {
		return err
	}
	h.PurgeForm(s.TenantID, f.FormID)
	return h.redirect(c, web.FormPath(f.FormID), success("Form saved."))
}

// providerWebhooks are the tenant's unsubscribe webhook URLs; SendGrid's signed webhook
// names the tenant in the URL.
func (h *handler) providerWebhooks(c *fiber.Ctx, s *session) []web.ProviderWebhook {
	hooks := web.ProviderWebhooks(h.baseURL(c))
	for i := range hooks {
		switch p := hooks[i].Provider; p {
		case "sendgrid", "twilio", "telnyx", "vonage":
			hooks[i].URL = h.tenantWebhookURL(c, p, s.TenantID)
		}
	}
	return hooks
}

func (h *handler) sendGridURL(c *fiber.Ctx, tenantID string) string {
	return h.tenantWebhookURL(c, "sendgrid", tenantID)
}

// tenantWebhookURL is the unsubscribe URL of a provider that signs its deliveries: it names
// the tenant whose secret verifies them.
func (h *handler) tenantWebhookURL(c *fiber.Ctx, provider, tenantID string) string {
	return h.baseURL(c) + "/api/v1/" + provider + "/unsubscribe?tenant=" + url.QueryEscape(tenantID)
}

// readFormInput decodes the posted definition; blank custom field rows are dropped, so row
// numbers in errors refer to the rows shown again.
func readFormInput(c *fiber.Ctx, id string) web.FormInput {
	in := web.FormInput{ID: strings.TrimSpace(id), Name: strings.TrimSpace(c.FormValue("name")), Open: c.FormValue("open") == "on",
		Retention: strings.TrimSpace(c.FormValue("retention")), RetentionFrom: c.FormValue("retention_from"),
		PrimaryFor: strings.TrimSpace(c.FormValue("primary_for")), ContactFor: strings.TrimSpace(c.FormValue("contact_for")),
		HostedPage: c.FormValue("hosted_page") == "on", AllowNoJS: c.FormValue("allow_no_js") == "on"}
	n, _ := strconv.Atoi(c.FormValue("field_count"))
	for i := range min(max(n, 0), provision.MaxFields) {
		p := "field." + strconv.Itoa(i) + "."
		name := strings.TrimSpace(c.FormValue(p + "name"))
		if name == "" {
			continue
		}
		order, err := strconv.Atoi(strings.TrimSpace(c.FormValue(p + "order")))
		if err != nil {
			order = i + 1
		}
		in.Fields = append(in.Fields, web.CustomField{Name: name, Type: c.FormValue(p + "type"), Personal: c.FormValue(p+"personal") == "on",
			Label: strings.TrimSpace(c.FormValue(p + "label")), Help: strings.TrimSpace(c.FormValue(p + "help")),
			Options: c.FormValue(p + "options"), Required: c.FormValue(p+"required") == "on", Order: order})
	}
	// A row's position number reorders it; rows with the same number keep their order.
	slices.SortStableFunc(in.Fields, func(a, b web.CustomField) int { return cmp.Compare(a.Order, b.Order) })
	for i := range in.Fields {
		in.Fields[i].Order = i + 1
	}
	return in
}

// validateForm checks a definition; keys are the input names of web.FormEditPage.
func validateForm(in web.FormInput) web.FieldErrors {
	return addViolations(web.FieldErrors{}, provision.CheckForm(formDef("", in)))
}

// formDef is the definition a form input gives.
func formDef(tenantID string, in web.FormInput) provision.FormInput {
	fields := make([]tenants.FieldDef, len(in.Fields))
	for i, f := range in.Fields {
		fields[i] = tenants.FieldDef{Name: f.Name, Type: f.Type, Personal: f.Personal, Label: f.Label, Help: f.Help,
			Required: f.Required, Options: optionList(f.Options)}
	}
	return provision.FormInput{TenantID: tenantID, FormID: in.ID, Name: in.Name, Open: in.Open, Fields: fields,
		Retention: in.Retention, RetentionFrom: in.RetentionFrom, PrimaryFor: in.PrimaryFor, ContactFor: in.ContactFor,
		HostedPage: in.HostedPage, AllowNoJS: in.AllowNoJS}
}

func formInput(f tenants.Form) web.FormInput {
	in := web.FormInput{ID: f.FormID, Name: f.Name, Open: f.Open, Retention: f.Retention, RetentionFrom: f.RetentionFrom,
		PrimaryFor: f.PrimaryFor, ContactFor: f.ContactFor, HostedPage: f.HostedPage, AllowNoJS: f.AllowNoJS}
	for i, d := range f.Fields {
		in.Fields = append(in.Fields, web.CustomField{Name: d.Name, Type: d.Type, Personal: d.Personal, Label: d.Label, Help: d.Help,
			Required: d.Required, Options: strings.Join(d.Options, "\n"), Order: i + 1})
	}
	return in
}

// optionList splits a select field's options, one per line (or comma-separated on one line).
func optionList(v string) []string {
	sep := "\n"
	if !strings.Contains(v, "\n") {
		sep = ","
	}
	var out []string
	for _, o := range strings.Split(v, sep) {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// pathID is the route's :id, unescaped (ids may hold characters a URL escapes).
func pathID(c *fiber.Ctx) string {
	id, err := url.PathUnescape(c.Params("id"))
	if err != nil {
		return ""
	}
	return id
}
