package pages

import (
	"context"
	"errors"
	"net/url"
	"slices"

	"github.com/a-h/templ"
	"github.com/consentforms/consentforms/clientaddr"
	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// LinkCases are the cases behind the confirmation and withdrawal pages (*ops.LinkPages).
type LinkCases interface {
	ConfirmLink(ctx context.Context, token string) (ops.LinkPage, error)
	Confirm(ctx context.Context, token, ip, userAgent, requestID string) (ops.LinkPage, error)
	Withdraw(ctx context.Context, token, requestID string) (ops.LinkPage, error)
	Preferences(ctx context.Context, token string) (ops.LinkPage, error)
	WithdrawChoice(ctx context.Context, token, choice, requestID string) (ops.LinkPage, error)
	OneClick(ctx context.Context, token, requestID string) (ops.LinkPage, error)
	// FileRequest files a data-subject request (access or erasure) from the preference page.
	FileRequest(ctx context.Context, token, kind, requestID string) (ops.LinkPage, error)
}

// linkStates maps a case's verdict to the page's state and its HTTP status: a link that
// names nothing is 404, one used or lapsed is 410 Gone.
var linkStates = map[ops.LinkState]struct {
	state  string
	status int
}{
	ops.LinkInvalid: {web.LinkInvalid, fiber.StatusNotFound},
	ops.LinkOpen:    {web.LinkOpen, fiber.StatusOK},
	ops.LinkDone:    {web.LinkDone, fiber.StatusOK},
	ops.LinkUsed:    {web.LinkUsed, fiber.StatusGone},
	ops.LinkLapsed:  {web.LinkLapsed, fiber.StatusGone},
	ops.LinkNothing: {web.LinkNothing, fiber.StatusOK},
}

// renderLink renders page (the case's verdict) with the component of the page kind.
func renderLink(c *fiber.Ctx, p ops.LinkPage, titleID string, comp func(web.LinkView) templ.Component) error {
	st, ok := linkStates[p.State]
	if !ok {
		st = linkStates[ops.LinkInvalid]
	}
	v := web.LinkView{Layout: personLayout(p, web.Msg(p.Language, titleID)),
		State: st.state, Channel: p.Channel, Channels: p.Channels, Action: c.Path()}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderContentLanguage, web.PageLang(p.Language))
	c.Status(st.status)
	return comp(v).Render(c.UserContext(), c.Response().BodyWriter())
}

// personLayout is the frame of a link's page: its language, title and the organisation.
func personLayout(p ops.LinkPage, title string) web.PersonLayout {
	return web.PersonLayout{Lang: p.Language, Title: title, Organisation: p.Organisation, PrivacyURL: p.PrivacyURL, Contact: p.Contact}
}

// token is the path's token, unescaped.
func token(c *fiber.Ctx) string {
	t, err := url.PathUnescape(c.Params("token"))
	if err != nil {
		return ""
	}
	return t
}

// confirmPage is GET /c/{token}: what the link would confirm, and one button; nothing changes.
func (h *handler) confirmPage(c *fiber.Ctx) error {
	p, err := h.Links.ConfirmLink(c.UserContext(), token(c))
	if err != nil {
		return err
	}
	return renderLink(c, p, "confirm.title", web.ConfirmPage)
}

// confirm is POST /c/{token}: the person confirms; the proof is their address and user agent.
func (h *handler) confirm(c *fiber.Ctx) error {
	p, err := h.Links.Confirm(c.UserContext(), token(c), clientaddr.Of(c, h.TrustedProxies), string(c.Request().Header.UserAgent()), requestid.Of(c))
	if err != nil {
		return err
	}
	return renderLink(c, p, "confirm.title", web.ConfirmPage)
}

// preferencesPage is GET /p/{token} (and GET /w/{token}): the consents the person holds at
// the organisation now, each with its own withdraw button; nothing changes.
func (h *handler) preferencesPage(c *fiber.Ctx) error {
	p, err := h.Links.Preferences(c.UserContext(), token(c))
	if err != nil {
		return err
	}
	return renderPreferences(c, p, "")
}

// preferencesPost is POST /p/{token}: a mail client's one-click unsubscribe
// (List-Unsubscribe=One-Click, no choice) withdraws general contact by e-mail; otherwise the
// person withdraws what they chose (withdraw=email, phone, form:<id> or all). A choice the page
// did not offer is 400 with the page again. request=access or request=erasure files a
// data-subject request instead (docs/API.md §17.3).
func (h *handler) preferencesPost(c *fiber.Ctx) error {
	if c.FormValue("withdraw") == "" && c.FormValue("List-Unsubscribe") == "One-Click" {
		// A mail client's one-click unsubscribe (RFC 8058): general contact by e-mail.
		p, err := h.Links.OneClick(c.UserContext(), token(c), requestid.Of(c))
		if err != nil {
			return err
		}
		return renderPreferences(c, p, "")
	}
	if kind := c.FormValue("request"); kind != "" && c.FormValue("withdraw") == "" {
		p, err := h.Links.FileRequest(c.UserContext(), token(c), kind, requestid.Of(c))
		var vs tenants.Violations
		if errors.As(err, &vs) {
			c.Status(fiber.StatusBadRequest)
			return renderPreferences(c, p, web.Msg(p.Language, "prefs.request_error"))
		}
		if err != nil {
			return err
		}
		return renderPreferences(c, p, "")
	}
	p, err := h.Links.WithdrawChoice(c.UserContext(), token(c), c.FormValue("withdraw"), requestid.Of(c))
	var vs tenants.Violations
	if errors.As(err, &vs) {
		c.Status(fiber.StatusBadRequest)
		return renderPreferences(c, p, web.Msg(p.Language, "prefs.error"))
	}
	if err != nil {
		return err
	}
	return renderPreferences(c, p, "")
}

// renderPreferences renders the preference page of p; its buttons post to the /p/ path of the
// same token.
func renderPreferences(c *fiber.Ctx, p ops.LinkPage, refused string) error {
	st, ok := linkStates[p.State]
	if !ok {
		st = linkStates[ops.LinkInvalid]
	}
	v := web.LinkView{Layout: personLayout(p, web.Msg(p.Language, "prefs.title")),
		State: st.state, Channels: p.Channels, Choices: "/p/" + url.PathEscape(token(c)), Error: refused,
		All: slices.Contains(p.Withdrawn, ops.ChoiceAll), DataRequests: p.Live, Filed: p.Filed != ""}
	for _, r := range p.Requests {
		v.Requests = append(v.Requests, web.RequestLine(p.Language, r.Kind, r.Status, r.FiledAt, r.DoneAt))
	}
	for _, f := range p.Forms {
		v.Forms = append(v.Forms, web.PreferenceForm{ID: f.ID, Name: f.Name})
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderContentLanguage, web.PageLang(p.Language))
	if c.Response().StatusCode() == fiber.StatusOK {
		c.Status(st.status)
	}
	return web.PreferencesPage(v).Render(c.UserContext(), c.Response().BodyWriter())
}

// withdraw is POST /w/{token}: the person withdraws their general-contact consent.
func (h *handler) withdraw(c *fiber.Ctx) error {
	p, err := h.Links.Withdraw(c.UserContext(), token(c), requestid.Of(c))
	if err != nil {
		return err
	}
	return renderLink(c, p, "withdraw.title", web.WithdrawPage)
}
