package pages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/clientaddr"
	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Submitter is the one intake case (*ops.Intake).
type Submitter interface {
	Submit(ctx context.Context, sub ops.Submission) (ops.Accepted, error)
}

// ConsentTexts gives the texts a form shows beside its consents' checkboxes now, in lang
// where it has them (*ops.Core).
type ConsentTexts interface {
	CurrentTexts(ctx context.Context, tenantID, formID, lang string) (tenants.TextSet, error)
}

// FormPages is what the hosted form page (/f/{tenant}/{form}) needs.
type FormPages struct {
	Tenants tenants.TenantStore
	Forms   tenants.FormStore
	// Keys lists a tenant's keys: a form that a usable publishable key names has a page, and
	// the key's origins may frame it.
	Keys interface {
		List(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	}
	Intake     Submitter
	Challenges tenants.ChallengeRepo
	Signer     altcha.Signer
	// Texts, when set, gives the consents' texts; else the catalogue's words.
	Texts ConsentTexts
	// NoScriptPerHour is how many submissions without the challenge one client address (an
	// IPv6 /64) may make to one form an hour where the form allows them (0:
	// DefaultNoScriptPerHour); a form takes at most NoScriptFormPerHour of them an hour from all
	// addresses together (0: DefaultNoScriptFormPerHour). Each instance counts its own.
	NoScriptPerHour, NoScriptFormPerHour int
}

// The default limits of submissions without the challenge.
const (
	DefaultNoScriptPerHour     = 3
	DefaultNoScriptFormPerHour = 60
)

// formActor is the audit actor of a submission through the hosted page.
const formActor = "page:form"

// honeypot is the hosted page's trap field.
const honeypot = "_gotcha"

// hostedForm is a form the page serves, with its tenant and the origins that may frame it.
type hostedForm struct {
	tenant tenants.Tenant
	form   tenants.Form
	// frame are the origins of the usable publishable keys that name the form.
	frame []string
}

// loadForm finds the path's tenant and form; ok is false (and the 404 page sent) when either
// is unknown, the tenant suspended, the form closed, or its hosted page neither turned on nor
// named by a usable publishable key.
func (h *handler) loadForm(c *fiber.Ctx) (hostedForm, bool, error) {
	ctx := c.UserContext()
	t, err := h.Forms.Tenants.Get(ctx, c.Params("tenant"))
	if err == nil && t.Active() {
		var f tenants.Form
		f, err = h.Forms.Forms.Get(ctx, t.ID, c.Params("form"))
		if err == nil && f.Open {
			hf := hostedForm{tenant: t, form: f}
			if hf.frame, err = h.frameAncestors(ctx, t.ID, f.FormID); err != nil {
				return hf, false, err
			}
			if f.HostedPage || len(hf.frame) > 0 {
				return hf, true, nil
			}
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
	v, err := h.formView(c, hf, map[string]string{}, nil, "")
	if err != nil {
		return err
	}
	return h.renderForm(c, fiber.StatusOK, hf, v)
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

// errChallenge is a missing, wrong, expired or spent challenge on the page.
var errChallenge = errors.New("pages: challenge failed")

// formPost is POST /f/{tenant}/{form}. The page decodes the post, keeps its own guards (the
// honeypot: thanked, nothing stored; the challenge, or where the form allows it the limited
// no-script fallback) and hands the rest to the one intake case, which runs the same rules as
// every other way in.
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
	if len(local) > 0 {
		return h.refuse(c, hf, vals, placeErrors(lang, fieldsOf(hf.form), nil, local), "")
	}
	addr := clientaddr.Of(c, h.TrustedProxies)
	sub := ops.Submission{TenantID: hf.tenant.ID, Country: hf.tenant.DefaultCountry, Kind: tenants.KindFormSubmission, Body: body,
		Way: ops.WayHostedPage, ClientIP: addr, Actor: formActor, RequestID: requestid.Of(c)}
	if sol := vals["altcha"]; sol != "" {
		ch, exp, err := h.Forms.Signer.Verify(sol, PagePurpose(hf.tenant.ID, hf.form.FormID), h.Now())
		if err != nil {
			return h.refuse(c, hf, vals, nil, web.Msg(lang, "form.err.challenge"))
		}
		sub.Challenge = func(ctx context.Context) error {
			if err := h.Forms.Challenges.Spend(ctx, hf.tenant.ID, ch, exp, h.Now()); errors.Is(err, tenants.ErrConflict) {
				return errChallenge
			} else if err != nil {
				return err
			}
			return nil
		}
	} else {
		if !hf.form.AllowNoJS {
			return h.refuse(c, hf, vals, nil, web.Msg(lang, "form.err.noscript"))
		}
		sub.Unchallenged = true
		sub.Challenge = func(context.Context) error { return h.noScript.take(hf, addr) }
	}
	got, err := h.Forms.Intake.Submit(c.UserContext(), sub)
	var refused tenants.Violations
	switch {
	case errors.As(err, &refused):
		return h.refuse(c, hf, vals, placeErrors(lang, fieldsOf(hf.form), refused, nil), "")
	case errors.Is(err, errChallenge):
		return h.refuse(c, hf, vals, nil, web.Msg(lang, "form.err.challenge"))
	case errors.Is(err, errNoScriptLimit):
		return h.refuseStatus(c, fiber.StatusTooManyRequests, hf, vals, nil, web.Msg(lang, "form.err.noscript_limit"))
	case err != nil:
		return err
	}
	return h.renderForm(c, fiber.StatusOK, hf, web.HostedForm{Done: true, Pending: got.Pending})
}

// refuse shows the form again with what was typed, each error next to its field and the
// summary above (400).
func (h *handler) refuse(c *fiber.Ctx, hf hostedForm, vals, errs map[string]string, summary string) error {
	return h.refuseStatus(c, fiber.StatusBadRequest, hf, vals, errs, summary)
}

func (h *handler) refuseStatus(c *fiber.Ctx, status int, hf hostedForm, vals, errs map[string]string, summary string) error {
	v, err := h.formView(c, hf, vals, errs, summary)
	if err != nil {
		return err
	}
	return h.renderForm(c, status, hf, v)
}

func (h *handler) renderForm(c *fiber.Ctx, status int, hf hostedForm, v web.HostedForm) error {
	v.Layout = web.PersonLayout{Lang: hf.form.Language, Title: formTitle(hf.form), Organisation: hf.tenant.DisplayName(),
		PrivacyURL: hf.tenant.Identity.PrivacyURL, Contact: hf.tenant.Identity.ContactEmail}
	frame := "'none'"
	if len(hf.frame) > 0 {
		frame = "'self' " + strings.Join(hf.frame, " ")
	}
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "+
		"form-action 'self'; base-uri 'none'; frame-ancestors "+frame)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return web.HostedFormPage(v).Render(c.UserContext(), c.Status(status).Response().BodyWriter())
}

// frameAncestors are the origins of the tenant's usable publishable keys that name the form:
// the sites that embed the page in an <iframe>.
func (h *handler) frameAncestors(ctx context.Context, tenantID, formID string) ([]string, error) {
	keys, err := h.Forms.Keys.List(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if !k.Publishable || !k.Usable(h.Now()) || !k.AllowsForm(formID) {
			continue
		}
		for _, o := range k.Origins {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
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
	h.noScript = newNoScriptLimits(h.Forms.NoScriptPerHour, h.Forms.NoScriptFormPerHour, h.Now)
	app.Get("/f/:tenant/:form", h.guard, h.formGet)
	app.Post("/f/:tenant/:form", h.guard, h.formPost)
	app.Get("/f/:tenant/:form/challenge", h.guard, h.formChallenge)
}
