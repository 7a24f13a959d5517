package admin

import (
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// The consent texts of a form (docs/API.md §12.1): the versions are listed on the form's page;
// FormTextsPath publishes a new one after a preview with its diff to the previous version of
// that consent and language.

// textVersions returns the form's versions, newest first, as listed.
func (h *handler) textVersions(c *fiber.Ctx, tenantID, formID string) ([]tenants.ConsentText, []web.TextItem, error) {
	list, err := h.Store.Texts.List(c.UserContext(), tenantID, formID)
	if err != nil {
		return nil, nil, err
	}
	items := make([]web.TextItem, len(list))
	for i, t := range list {
		items[len(list)-1-i] = textItem(t)
	}
	return list, items, nil
}

func textItem(t tenants.ConsentText) web.TextItem {
	return web.TextItem{Version: t.ID, Consent: string(t.Consent), Language: t.Language, Hash: t.Hash, PublishedAt: t.PublishedAt}
}

// lf turns the CRLF line breaks browsers submit into LF: the text as typed, hashed the same
// as when published from a file.
func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// textPage shows the editor of a new version (GET FormTextsPath).
func (h *handler) textPage(c *fiber.Ctx, s *session) error {
	page, _, err := h.textForm(c, s)
	if err != nil {
		return err
	}
	page.Input = web.TextInput{Consent: c.Query("consent", web.ConsentPrimaryPurpose), Language: c.Query("lang", page.Input.Language)}
	return h.render(c, fiber.StatusOK, web.TextEdit(page))
}

// textForm is the texts page of the form the path names, its language as the input's, with
// the form's versions (also returned oldest first).
func (h *handler) textForm(c *fiber.Ctx, s *session) (web.TextPage, []tenants.ConsentText, error) {
	f, err := h.Store.Forms.Get(c.UserContext(), s.TenantID, pathID(c))
	if err != nil {
		return web.TextPage{}, nil, err
	}
	list, items, err := h.textVersions(c, s.TenantID, f.FormID)
	return web.TextPage{Layout: h.layout(c, s, "Consent texts of "+f.FormID, web.NavForms), FormID: f.FormID,
		Input: web.TextInput{Language: f.Language}, Versions: items}, list, err
}

// textPost previews (action=preview), returns to the editor (edit) or publishes (publish) a
// new version (POST FormTextsPath).
func (h *handler) textPost(c *fiber.Ctx, s *session) error {
	page, list, err := h.textForm(c, s)
	if err != nil {
		return err
	}
	in := web.TextInput{Consent: c.FormValue("consent"), Language: c.FormValue("lang"), Text: lf(c.FormValue("text"))}
	page.Input = in
	pi := provision.TextInput{TenantID: s.TenantID, FormID: page.FormID, Consent: in.Consent, Language: in.Language, Text: in.Text}
	if _, _, vs := provision.CheckText(pi); len(vs) > 0 {
		page.Errors, _ = fieldErrors(vs)
		return h.invalid(c, web.TextEdit(page))
	}
	switch c.FormValue("action") {
	case "publish":
		t, err := h.provision().PublishText(c.UserContext(), by(c, s), pi)
		if err != nil {
			return err
		}
		h.PurgeForm(s.TenantID, page.FormID)
		return h.redirect(c, web.FormPath(page.FormID), success("Consent text published: version "+t.ID+"."))
	case "preview":
		name, lang, _ := provision.CheckText(pi)
		page.Preview, page.Input.Consent, page.Input.Language = true, string(name), lang
		previous := ""
		for _, t := range slices.Backward(list) {
			if t.Consent == name && t.Language == lang {
				p := textItem(t)
				page.Previous, previous = &p, t.Text
				break
			}
		}
		page.Diff = web.LineDiff(previous, in.Text)
	}
	return h.render(c, fiber.StatusOK, web.TextEdit(page))
}

// attachNotices adds to a record's consents the exact texts they were given under.
func (h *handler) attachNotices(c *fiber.Ctx, tenantID string, r tenants.Record, v *web.ConsentRows) error {
	views := map[tenants.ConsentName]*web.ConsentRow{tenants.ConsentPrimaryPurpose: &v.PrimaryPurpose,
		tenants.ConsentGeneralContactEmail: &v.GeneralContactEmail, tenants.ConsentGeneralContactPhone: &v.GeneralContactPhone}
	for name, con := range r.Consents.All() {
		if con.Text == nil {
			continue
		}
		t, err := h.Store.Texts.Get(c.UserContext(), tenantID, r.FormID, con.Text.Version)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		views[name].Notice = &web.NoticeView{Version: t.ID, Language: t.Language, Hash: t.Hash, Text: t.Text, PublishedAt: t.PublishedAt}
	}
	return nil
}
