package admin

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// loginFailed is the one message for an unknown e-mail and a wrong password alike.
const loginFailed = "The e-mail address or password is not right."

func (h *handler) loginPage(c *fiber.Ctx, _ *session) error {
	return h.renderLogin(c, fiber.StatusOK, "", web.Flash{})
}

func (h *handler) renderLogin(c *fiber.Ctx, status int, email string, f web.Flash) error {
	l := h.layout(c, nil, "Sign in", "")
	l.CSRF = h.loginCSRF(h.ensureLoginNonce(c))
	if f.Text != "" {
		l.Flash = f
	}
	return h.render(c, status, web.Login(web.LoginPage{Layout: l, Email: email}))
}

// login checks the credentials, throttling failures per account and per IP address, and
// starts a session with a fresh id.
func (h *handler) login(c *fiber.Ctx, _ *session) error {
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	account, ip := "account:"+strings.ToLower(email), "ip:"+c.IP()
	if wait, ok := h.throttled(account, ip); ok {
		h.countThrottled()
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(wait.Seconds())+1))
		p := web.ErrorPage{Layout: h.layout(c, nil, "Too many attempts", ""), Status: fiber.StatusTooManyRequests,
			Message: "Too many failed sign-in attempts. Wait a few minutes, then try again."}
		return h.render(c, fiber.StatusTooManyRequests, web.Error(p))
	}
	st, err := h.Store.Staff.ByEmail(c.UserContext(), email)
	switch {
	case errors.Is(err, tenants.ErrNotFound) || email == "":
		h.dummy.CheckPassword(password) // as slow as a wrong password
		err = errLoginFailed
	case err != nil:
		return err
	case !st.CheckPassword(password):
		err = errLoginFailed
	}
	if err != nil {
		h.throttle.fail(account, ip)
		return h.renderLogin(c, fiber.StatusUnauthorized, email, web.Flash{Kind: web.FlashError, Text: loginFailed})
	}
	h.throttle.reset(account)
	err = h.Store.Audit.Append(c.UserContext(), tenants.AuditEntry{Time: h.now(), TenantID: st.TenantID,
		Actor: "staff:" + st.ID, Action: tenants.ActionStaffLogin, RequestID: requestID(c)})
	if err != nil {
		return err
	}
	if err := h.startSession(c, st); err != nil {
		return err
	}
	clearCookie(c, loginCookie)
	return c.Redirect(web.PathDashboard, fiber.StatusSeeOther)
}

var errLoginFailed = errors.New("login failed")

// throttled reports whether the account or the address has used up its failures.
func (h *handler) throttled(account, ip string) (wait time.Duration, blocked bool) {
	if b, w := h.throttle.blocked(account, maxFailuresAccount); b {
		return w, true
	}
	if b, w := h.throttle.blocked(ip, maxFailuresIP); b {
		return w, true
	}
	return 0, false
}

// logout ends the session.
func (h *handler) logout(c *fiber.Ctx, s *session) error {
	h.endSession(c, s)
	return c.Redirect(web.PathLogin, fiber.StatusSeeOther)
}
