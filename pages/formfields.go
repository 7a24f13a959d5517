package pages

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// The consents a hosted page asks, as submission keys.
const (
	keyPrimary     = "consent_to_primary_purpose"
	keyContactMail = "consent_to_general_contact_email"
	keyContactTel  = "consent_to_general_contact_phone"
)

// fieldsOf is what the page asks.
func fieldsOf(f tenants.Form) []tenants.FieldDef { return f.PageFields() }

// inputType is the HTML input of a field type.
func inputType(t string) string { return web.InputType(t) }

var autocompletes = map[string]string{"email": "email", "phone_number": "tel", "first_name": "given-name", "last_name": "family-name"}

// asks reports whether the page has a field named name.
func asks(fields []tenants.FieldDef, name string) bool {
	return slices.ContainsFunc(fields, func(f tenants.FieldDef) bool { return f.Name == name })
}

// submissionBody turns the posted page into an accept-submission body; local holds the errors
// found before the rules run (a required field left empty, a number that is none).
func submissionBody(f tenants.Form, fields []tenants.FieldDef, vals map[string]string) (map[string]any, map[string]string) {
	lang := f.Language
	body := map[string]any{"form_id": f.FormID}
	if id := vals["submission_id"]; tenants.ValidID(id) {
		body["submission_id"] = id
	}
	if v := vals["consent_text_version"]; v != "" {
		body["consent_text_version"] = v
	}
	local := map[string]string{}
	for _, d := range fields {
		v := strings.TrimSpace(vals[d.Name])
		switch {
		case inputType(d.Type) == "checkbox":
			if v != "" {
				body[d.Name] = true
			} else if d.Required {
				local[d.Name] = web.Msg(lang, "form.err.required")
			}
		case v == "":
			if d.Required {
				local[d.Name] = web.Msg(lang, "form.err.required")
			}
		case d.Type == tenants.FieldNumber:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				local[d.Name] = web.Msg(lang, "form.err.number")
			}
			body[d.Name] = n
		default:
			body[d.Name] = v
		}
	}
	// The consents last as long as the form says: the intake case gives every consent a
	// public way takes the form's durations.
	for _, k := range []string{keyPrimary, keyContactMail, keyContactTel} {
		if vals[k] != "" {
			body[k] = true
		}
	}
	return body, local
}

// placeErrors puts each refusal next to its field: the consents' codes to their checkbox or
// contact field, a field's own code to the field; what has no field goes to "" (the summary).
func placeErrors(lang string, fields []tenants.FieldDef, vs []tenants.Violation, local map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range local {
		out[k] = v
	}
	put := func(field, msg string) {
		if _, ok := out[field]; !ok {
			out[field] = msg
		}
	}
	for _, v := range vs {
		c := v.Code
		switch {
		case strings.HasPrefix(c, keyPrimary) || c == "consent_missing":
			put(keyPrimary, web.Msg(lang, "form.err.primary"))
		case c == keyContactMail+"_missing":
			put("email", web.Msg(lang, "form.err.required"))
		case c == keyContactMail+"_invalid" || c == "email_invalid":
			put("email", web.Msg(lang, "form.err.email"))
		case c == keyContactTel+"_missing":
			put("phone_number", web.Msg(lang, "form.err.required"))
		case c == keyContactTel+"_invalid" || c == "phone_number_invalid":
			put("phone_number", web.Msg(lang, "form.err.phone"))
		case c == consent.CodeTooManyIdentifiers:
			put("", web.Msg(lang, "form.err.too_many"))
		case asks(fields, v.Field):
			put(v.Field, web.Msg(lang, "form.err.invalid"))
		case asks(fields, strings.TrimSuffix(c, "_invalid")):
			put(strings.TrimSuffix(c, "_invalid"), web.Msg(lang, "form.err.invalid"))
		default:
			put("", web.Msg(lang, "form.err.invalid"))
		}
	}
	return out
}

// formView is the page's view model with the values typed and the errors placed.
func (h *handler) formView(c *fiber.Ctx, hf hostedForm, vals, errs map[string]string, summary string) (web.HostedForm, error) {
	f, lang := hf.form, hf.form.Language
	texts := tenants.TextSet{}
	if h.Forms.Texts != nil {
		var err error
		if texts, err = h.Forms.Texts.CurrentTexts(c.UserContext(), hf.tenant.ID, f.FormID, lang); err != nil {
			return web.HostedForm{}, err
		}
	}
	base := "/f/" + hf.tenant.ID + "/" + f.FormID
	sid := vals["submission_id"]
	if !tenants.ValidID(sid) {
		sid = newSubmissionID()
	}
	v := web.HostedForm{Action: base, ChallengeURL: base + "/challenge", SubmissionID: sid, Honeypot: honeypot, TextVersion: texts.Version()}
	fields := fieldsOf(f)
	for _, d := range fields {
		label := d.Label
		if label == "" {
			label = web.Msg(lang, "form.field."+d.Name)
			if label == "form.field."+d.Name {
				label = d.Name
			}
		}
		v.Fields = append(v.Fields, web.HostedField{Name: d.Name, Label: label, Help: d.Help, Type: inputType(d.Type),
			Required: d.Required, Options: d.Options, Value: vals[d.Name], Checked: vals[d.Name] != "", Error: errs[d.Name],
			Autocomplete: autocompletes[d.Name]})
	}
	primary, contact := f.ConsentDeadlines()
	now := h.Now()
	add := func(key, consentName, msg, interval string, required bool) {
		v.Consents = append(v.Consents, web.HostedConsent{Name: key, Text: consentText(hf, texts, consentName, msg),
			Until: until(lang, interval, now), Required: required, Checked: vals[key] != "", Error: errs[key]})
	}
	add(keyPrimary, "primary_purpose", "form.consent.primary", primary, hasCustom(fields))
	if asks(fields, "email") {
		add(keyContactMail, "general_contact_email", "form.consent.email", contact, false)
	}
	if asks(fields, "phone_number") {
		add(keyContactTel, "general_contact_phone", "form.consent.phone", contact, false)
	}
	if len(errs) > 0 && summary == "" {
		summary = web.Msg(lang, "form.errors.summary")
		if s := errs[""]; s != "" {
			summary += " " + s
		}
	}
	v.Summary = summary
	return v, nil
}

// hasCustom reports whether the page asks a custom field: then the primary consent is required.
func hasCustom(fields []tenants.FieldDef) bool {
	return slices.ContainsFunc(fields, func(d tenants.FieldDef) bool { return !consent.IsKnownKey(d.Name) })
}

// consentText is the form's text for a consent (as submission keys name it), else the
// catalogue's words.
func consentText(hf hostedForm, texts tenants.TextSet, key, msg string) string {
	if name, ok := tenants.ConsentByKey(key); ok {
		if t, ok := texts[name]; ok {
			return t.Text
		}
	}
	return web.MsgWith(hf.form.Language, msg, "org", hf.tenant.Name)
}

// intervalEnd is now plus a deadline interval.
func intervalEnd(interval string, now time.Time) (time.Time, bool) {
	iv, err := consent.ParseInterval(interval)
	if err != nil {
		return time.Time{}, false
	}
	return iv.From(now)
}
