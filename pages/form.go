package pages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Ingester stores a parsed submission (ops.Service does).
type Ingester interface {
	IngestDraft(ctx context.Context, tenantID string, d intake.Draft, vs []tenants.Violation, actor, requestID string) (string, ops.Outcome, error)
}

// ConsentTexts gives the text a form shows beside a consent's checkbox in lang, when the form
// has one; consent is primary_purpose, general_contact_email or general_contact_phone.
type ConsentTexts interface {
	ConsentText(ctx context.Context, tenantID, formID, lang, consent string) (string, bool, error)
}

// FormPages is what the hosted form page (/f/{tenant}/{form}) needs.
type FormPages struct {
	Tenants tenants.TenantStore
	Forms   tenants.FormStore
	// Keys lists a tenant's keys: the origins of its publishable keys for a form may frame the page.
	Keys interface {
		List(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	}
	Ingest     Ingester
	Challenges tenants.ChallengeRepo
	Signer     altcha.Signer
	// Texts, when set, gives the consents' texts; else the catalogue's words.
	Texts ConsentTexts
}

// formActor is the audit actor of a submission through the hosted page.
const formActor = "page:form"

// honeypot is the hosted page's trap field.
const honeypot = "_gotcha"

// hostedForm is a form the page serves, with its tenant.
type hostedForm struct {
	tenant tenants.Tenant
	form   tenants.Form
}

// loadForm finds the path's tenant and form; ok is false (and the 404 page sent) when either
// is unknown, the tenant suspended or the form closed.
func (h *handler) loadForm(c *fiber.Ctx) (hostedForm, bool, error) {
	ctx := c.UserContext()
	t, err := h.Forms.Tenants.Get(ctx, c.Params("tenant"))
	if err == nil && t.Active() {
		var f tenants.Form
		f, err = h.Forms.Forms.Get(ctx, t.ID, c.Params("form"))
		if err == nil && f.Open {
			return hostedForm{tenant: t, form: f}, true, nil
		}
	}
	if err != nil && !errors.Is(err, tenants.ErrNotFound) {
		return hostedForm{}, false, err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
	return hostedForm{}, false, c.Status(fiber.StatusNotFound).SendString(web.Msg("en", "form.closed") + " / " + web.Msg("de", "form.closed"))
}

// formGet is GET /f/{tenant}/{form}.
func (h *handler) formGet(c *fiber.Ctx) error {
	hf, ok, err := h.loadForm(c)
	if !ok {
		return err
	}
	return h.renderForm(c, fiber.StatusOK, hf, h.formView(c, hf, map[string]string{}, nil, ""))
}

// formChallenge is GET /f/{tenant}/{form}/challenge: the page's spam challenge.
func (h *handler) formChallenge(c *fiber.Ctx) error {
	hf, ok, err := h.loadForm(c)
	if !ok {
		return err
	}
	ch, err := h.Forms.Signer.Create(PagePurpose(hf.tenant.ID, hf.form.FormID), h.Now())
	if err != nil {
		return err
	}
	return c.JSON(ch)
}

// PagePurpose binds a challenge to the hosted page of a form.
func PagePurpose(tenantID, formID string) string { return "page:" + tenantID + "/" + formID }

// formPost is POST /f/{tenant}/{form}: the same rules as the API. A filled honeypot is thanked
// and nothing stored; a challenge, when the page's script sent one, must hold and is spent once.
func (h *handler) formPost(c *fiber.Ctx) error {
	hf, ok, err := h.loadForm(c)
	if !ok {
		return err
	}
	vals := map[string]string{}
	for k, v := range c.Request().PostArgs().All() {
		vals[string(k)] = string(v)
	}
	lang := hf.form.Language
	if vals[honeypot] != "" {
		return h.renderForm(c, fiber.StatusOK, hf, web.HostedForm{Done: true})
	}
	body, local := submissionBody(hf.form, fieldsOf(hf.form), vals)
	var spend func() error
	if sol := vals["altcha"]; sol != "" {
		ch, exp, err := h.Forms.Signer.Verify(sol, PagePurpose(hf.tenant.ID, hf.form.FormID), h.Now())
		if err != nil {
			return h.refuse(c, hf, vals, nil, web.Msg(lang, "form.err.challenge"))
		}
		spend = func() error { return h.Forms.Challenges.Spend(c.UserContext(), hf.tenant.ID, ch, exp, h.Now()) }
	}
	d, vs := intake.ParseRecord(tenants.KindFormSubmission, body, h.Now(), hf.tenant.DefaultCountry)
	if len(vs) > 0 || len(local) > 0 {
		return h.refuse(c, hf, vals, placeErrors(lang, fieldsOf(hf.form), vs, local), "")
	}
	if spend != nil {
		if err := spend(); errors.Is(err, tenants.ErrConflict) {
			return h.refuse(c, hf, vals, nil, web.Msg(lang, "form.err.challenge"))
		} else if err != nil {
			return err
		}
	}
	_, _, err = h.Forms.Ingest.IngestDraft(c.UserContext(), hf.tenant.ID, d, nil, formActor, requestid.Of(c))
	var refused tenants.Violations
	if errors.As(err, &refused) {
		return h.refuse(c, hf, vals, placeErrors(lang, fieldsOf(hf.form), refused, nil), "")
	}
	if err != nil {
		return err
	}
	return h.renderForm(c, fiber.StatusOK, hf, web.HostedForm{Done: true})
}

// refuse shows the form again with what was typed, each error next to its field and the
// summary above (400).
func (h *handler) refuse(c *fiber.Ctx, hf hostedForm, vals, errs map[string]string, summary string) error {
	return h.renderForm(c, fiber.StatusBadRequest, hf, h.formView(c, hf, vals, errs, summary))
}

func (h *handler) renderForm(c *fiber.Ctx, status int, hf hostedForm, v web.HostedForm) error {
	v.Layout = web.PersonLayout{Lang: hf.form.Language, Title: formTitle(hf.form), Organisation: hf.tenant.Name}
	frame, err := h.frameAncestors(c.UserContext(), hf)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "+
		"form-action 'self'; base-uri 'none'; frame-ancestors "+frame)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return web.HostedFormPage(v).Render(c.UserContext(), c.Status(status).Response().BodyWriter())
}

// frameAncestors are the origins of the tenant's usable publishable keys for the form: the
// sites that embed the page in an <iframe>. None: 'none'.
func (h *handler) frameAncestors(ctx context.Context, hf hostedForm) (string, error) {
	keys, err := h.Forms.Keys.List(ctx, hf.tenant.ID)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if !k.Publishable || !k.Usable(h.Now()) || !k.AllowsForm(hf.form.FormID) {
			continue
		}
		for _, o := range k.Origins {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	if len(out) == 0 {
		return "'none'", nil
	}
	return "'self' " + strings.Join(out, " "), nil
}

func formTitle(f tenants.Form) string {
	if f.Name != "" {
		return f.Name
	}
	return f.FormID
}

// newSubmissionID names the submission a page view makes, so that posting it twice stores it once.
func newSubmissionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "web-" + hex.EncodeToString(b)
}

// until is the end of a consent given now for interval, in the page's words.
func until(lang, interval string, now time.Time) string {
	end, ok := intervalEnd(interval, now)
	if !ok {
		return ""
	}
	return web.MsgWith(lang, "form.until", "date", web.LongDate(lang, end))
}

// mountForm registers the hosted form page behind the guard; without a store wired (tests of
// other pages) it registers nothing.
func (h *handler) mountForm(app *fiber.App) {
	if h.Forms.Forms == nil {
		return
	}
	if h.Forms.Signer.MaxNumber <= 0 {
		h.Forms.Signer.MaxNumber = altcha.DefaultMaxNumber
	}
	if h.Forms.Signer.TTL <= 0 {
		h.Forms.Signer.TTL = altcha.DefaultTTL
	}
	app.Get("/f/:tenant/:form", h.guard, h.formGet)
	app.Post("/f/:tenant/:form", h.guard, h.formPost)
	app.Get("/f/:tenant/:form/challenge", h.guard, h.formChallenge)
}
