package web

import (
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// FormEmbed is what a form's page offers for the organisation's website: the hosted page (to
// preview and link), an <iframe> snippet, and a plain-HTML snippet posting with a publishable key.
type FormEmbed struct {
	PageURL, Iframe, HTML string
	// TextVersion is the consent text version the plain-HTML snippet carries ("" none), and
	// TextsPublished when it was published: a snippet copied before then is stale.
	TextVersion    string
	TextsPublished time.Time
}

// pkPlaceholder stands where the snippet's publishable key goes: keys are shown once, when issued.
const pkPlaceholder = "cf_pk_YOUR_PUBLISHABLE_KEY"

// EmbedFor builds the snippets of form f of tenantID (organisation org) served at base
// (scheme://host). The plain-HTML snippet carries the consent texts current now (texts, in
// the form's language) and their version id, which its script sends: the record then names
// the words the person saw, and a newer publication makes a copied snippet stale.
func EmbedFor(base, tenantID, org string, f tenants.Form, texts tenants.TextSet) FormEmbed {
	page := base + "/f/" + url.PathEscape(tenantID) + "/" + url.PathEscape(f.FormID)
	e := FormEmbed{PageURL: page, TextVersion: texts.Version()}
	for _, t := range texts {
		if t.ID == e.TextVersion {
			e.TextsPublished = t.PublishedAt
		}
	}
	e.Iframe = `<iframe src="` + html.EscapeString(page) + `" title="` + html.EscapeString(orID(f)) +
		`" style="width:100%;max-width:40rem;height:56rem;border:0" loading="lazy"></iframe>`
	var b strings.Builder
	esc := html.EscapeString
	version := ""
	if e.TextVersion != "" {
		version = `" data-cf-text-version="` + esc(e.TextVersion)
	}
	b.WriteString(`<form data-cf-api="` + esc(base) + `" data-cf-key="` + pkPlaceholder + `" data-cf-form="` + esc(f.FormID) +
		version + embedThanks(f) + `" novalidate>` + "\n")
	ids := map[string]bool{}
	for _, d := range f.PageFields() {
		id := "cf-" + fieldID(d.Name)
		ids[d.Name] = true
		label := d.Label
		if label == "" {
			label = Msg(f.Language, "form.field."+d.Name)
			if strings.HasPrefix(label, "form.field.") {
				label = d.Name
			}
		}
		req := ""
		if d.Required {
			req = " required"
		}
		b.WriteString(`  <p>`)
		switch typ := InputType(d.Type); typ {
		case "checkbox":
			b.WriteString(`<input type="checkbox" id="` + id + `" name="` + esc(d.Name) + `"` + req + `> <label for="` + id + `">` + esc(label) + `</label>`)
		case "textarea":
			b.WriteString(`<label for="` + id + `">` + esc(label) + `</label><br><textarea id="` + id + `" name="` + esc(d.Name) + `"` + req + `></textarea>`)
		case "select":
			b.WriteString(`<label for="` + id + `">` + esc(label) + `</label><br><select id="` + id + `" name="` + esc(d.Name) + `"` + req + `><option value=""></option>`)
			for _, o := range d.Options {
				b.WriteString(`<option>` + esc(o) + `</option>`)
			}
			b.WriteString(`</select>`)
		default:
			b.WriteString(`<label for="` + id + `">` + esc(label) + `</label><br><input type="` + typ + `" id="` + id + `" name="` + esc(d.Name) + `"` + req + `>`)
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("  <fieldset>\n    <legend>" + esc(Msg(f.Language, "form.consents")) + "</legend>\n")
	consent := func(key, msg string) {
		text := MsgWith(f.Language, msg, "org", org)
		if name, ok := tenants.ConsentByKey(strings.TrimPrefix(key, "consent_to_")); ok {
			if t, ok := texts[name]; ok {
				text = t.Text
			}
		}
		b.WriteString(`    <p><input type="checkbox" id="cf-` + key + `" name="` + key + `"> <label for="cf-` + key + `">` +
			esc(text) + "</label></p>\n")
	}
	consent("consent_to_primary_purpose", "form.consent.primary")
	if ids["email"] {
		consent("consent_to_general_contact_email", "form.consent.email")
	}
	if ids["phone_number"] {
		consent("consent_to_general_contact_phone", "form.consent.phone")
	}
	b.WriteString("  </fieldset>\n")
	b.WriteString(`  <p style="position:absolute;left:-10000px" aria-hidden="true"><input type="text" name="_gotcha" tabindex="-1" autocomplete="off"></p>` + "\n")
	b.WriteString(`  <p data-cf-status aria-live="assertive"></p>` + "\n")
	b.WriteString(`  <button type="submit">` + esc(Msg(f.Language, "form.submit")) + "</button>\n</form>\n")
	b.WriteString(`<script src="` + esc(base+AssetPath("cfform.js")) + `" defer></script>`)
	e.HTML = b.String()
	return e
}

// embedThanks are the snippet's thanks attributes, each closed but the last (the caller closes
// it): the thanks the script shows and, where a ticked consent waits for its confirmation
// (double opt-in), the boxes that do and the thanks that say to check the inbox, as the hosted
// page does.
func embedThanks(f tenants.Form) string {
	esc := html.EscapeString
	var confirm []string
	if f.RequiresConfirmation(tenants.ChannelEmail) {
		confirm = append(confirm, "consent_to_general_contact_email")
	}
	if f.RequiresConfirmation(tenants.ChannelPhone) {
		confirm = append(confirm, "consent_to_general_contact_phone")
	}
	out := `" data-cf-thanks="` + esc(Msg(f.Language, "form.thanks")) + `" data-cf-error="` + esc(Msg(f.Language, "form.errors.summary"))
	if len(confirm) > 0 {
		out += `" data-cf-confirm="` + strings.Join(confirm, ",") + `" data-cf-thanks-pending="` + esc(Msg(f.Language, "form.thanks.pending"))
	}
	return out
}

func orID(f tenants.Form) string {
	if f.Name != "" {
		return f.Name
	}
	return f.FormID
}

// InputType is the HTML input (or textarea, select) of a field type, on the hosted page and in the snippet.
func InputType(t string) string {
	switch t {
	case tenants.FieldEmail:
		return "email"
	case tenants.FieldPhone:
		return "tel"
	case tenants.FieldBoolean, tenants.FieldCheckbox:
		return "checkbox"
	case tenants.FieldChoice, tenants.FieldSelect:
		return "select"
	case tenants.FieldNumber, tenants.FieldDate, tenants.FieldTextarea:
		return t
	}
	return "text"
}

// orderValue is a field row's position: its own, or its row number for a blank row.
func orderValue(i int, f CustomField) string {
	if f.Order > 0 {
		return strconv.Itoa(f.Order)
	}
	return strconv.Itoa(i + 1)
}
