package admin

import (
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// render writes a page with status.
func (h *handler) render(c *fiber.Ctx, status int, page templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return page.Render(c.UserContext(), c.Response().BodyWriter())
}

// layout is the frame of a page for s (nil: signed out), consuming the flash message.
func (h *handler) layout(c *fiber.Ctx, s *session, title, nav string) web.Layout {
	l := web.Layout{Title: title, Flash: h.takeFlash(c)}
	if s == nil {
		return l
	}
	l.CSRF = s.CSRF
	l.User = &web.User{Email: s.Staff.Email, Role: s.Staff.Role, TenantName: s.TenantName,
		SwitchTenant: s.Staff.Role == tenants.RolePlatformAdmin}
	l.Nav = web.BuildNav(nav, func(key string) bool { return h.navAllowed(s, key) })
	return l
}

// navAllowed shows a navigation entry when the role may open the page it links to.
func (h *handler) navAllowed(s *session, key string) bool {
	for _, n := range web.NavCatalogue() {
		if n.Key == key {
			a, ok := h.navAccess[n.Href]
			return ok && h.may(s, a)
		}
	}
	return false
}

// fail is the one error renderer: internals go to the log with the request id, the page
// shows a safe message only.
func (h *handler) fail(c *fiber.Ctx, s *session, err error) error {
	status := fiber.StatusInternalServerError
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		status = fiber.StatusNotFound
	case errors.Is(err, tenants.ErrUnavailable):
		status = fiber.StatusServiceUnavailable
		c.Set(fiber.HeaderRetryAfter, "5")
	}
	rid := requestID(c)
	if status >= 500 {
		ops.CountStoreError(h.observer(), err) // counted by store operation in the metrics
		h.log.Error("admin request failed", "route", c.Route().Path, "method", c.Method(), "requestId", rid, "err", err)
	}
	c.Response().ResetBody()
	return h.render(c, status, web.Error(web.ErrorPage{Layout: h.layout(c, s, "Error", ""), Status: status, RequestID: rid}))
}

// forbidden is the 403 page: signed in, but the role does not allow this.
func (h *handler) forbidden(c *fiber.Ctx, s *session) error { return h.forbiddenMsg(c, s, "") }

func (h *handler) forbiddenMsg(c *fiber.Ctx, s *session, msg string) error {
	p := web.ErrorPage{Layout: h.layout(c, s, "Not allowed", ""), Status: fiber.StatusForbidden, Message: msg,
		RequestID: requestID(c)}
	return h.render(c, fiber.StatusForbidden, web.Forbidden(p))
}

// notFound answers any /admin path no route matches with the HTML 404 page; an unsafe
// request without a valid CSRF token gets the 403 that every such request gets.
func (h *handler) notFound(c *fiber.Ctx) error {
	pageHeaders(c)
	var s *session
	cl, ok, _ := h.readSession(c) // best effort: a store error shows the page signed out
	if unsafe(c) && (!ok || !formEncoded(c) || !h.validSessionCSRF(cl.SessionID, submittedCSRF(c))) {
		return h.csrfRefused(c, nil)
	}
	if ok {
		s, _ = h.loadSession(c, cl) // best effort: the page is shown either way
	}
	p := web.ErrorPage{Layout: h.layout(c, s, "Not found", ""), Status: fiber.StatusNotFound,
		RequestID: requestID(c)}
	return h.render(c, fiber.StatusNotFound, web.Error(p))
}

// invalid re-renders a form page with its field errors.
func (h *handler) invalid(c *fiber.Ctx, page templ.Component) error {
	return h.render(c, fiber.StatusUnprocessableEntity, page)
}

const flashCookie = "cf_flash"

// redirect answers a successful post: 303 to path with a flash message for the next page.
func (h *handler) redirect(c *fiber.Ctx, path string, f web.Flash) error {
	if f.Text != "" {
		v := string(f.Kind) + "|" + base64.RawURLEncoding.EncodeToString([]byte(f.Text))
		setCookie(c, flashCookie, v+"|"+mac(h.sessionKeys()[0].flash, "flash", v), h.Now().Add(time.Minute))
	}
	return c.Redirect(path, fiber.StatusSeeOther)
}

// takeFlash reads and clears the flash message; a forged or garbled one shows nothing.
func (h *handler) takeFlash(c *fiber.Ctx) web.Flash {
	v := c.Cookies(flashCookie)
	if v == "" {
		return web.Flash{}
	}
	clearCookie(c, flashCookie)
	i := strings.LastIndexByte(v, '|')
	if i < 0 || !h.validFlash(v[:i], v[i+1:]) {
		return web.Flash{}
	}
	kind, text, _ := strings.Cut(v[:i], "|")
	b, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || (kind != string(web.FlashSuccess) && kind != string(web.FlashError)) {
		return web.Flash{}
	}
	return web.Flash{Kind: web.FlashKind(kind), Text: string(b)}
}

func (h *handler) validFlash(v, sig string) bool {
	for _, k := range h.sessionKeys() {
		if validCSRF(mac(k.flash, "flash", v), sig) {
			return true
		}
	}
	return false
}

func success(text string) web.Flash { return web.Flash{Kind: web.FlashSuccess, Text: text} }

// actor names the signed-in user in the audit log: never the e-mail address.
func actor(s *session) string { return "staff:" + s.Staff.ID }

// requestID is the id the app's request middleware gave this request.
var requestID = requestid.Of

// baseURL is the base of the links and webhook URLs a page shows: the service's public URL,
// never a Host header a client chose (the request's own only where none is configured).
func (h *handler) baseURL(c *fiber.Ctx) string {
	if h.PublicURL != "" {
		return h.PublicURL
	}
	return c.Protocol() + "://" + c.Hostname()
}

func isNotFound(err error) bool { return errors.Is(err, tenants.ErrNotFound) }

// now is the request's time in UTC.
func (h *handler) now() time.Time { return h.Now().UTC() }
