package admin

import (
	"errors"
	"strconv"
	"strings"

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

// login checks the credentials and starts a session with a fresh id. The attempt is counted
// against (account, client address) and against the address before the password is
// checked, so that parallel guesses cannot outrun the limit; a stranger's failures never
// lock out a staff member signing in from elsewhere.
func (h *handler) login(c *fiber.Ctx, _ *session) error {
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	// No account has an empty e-mail address or password: such an attempt is answered without
	// a password check, in the same words as any failure.
	if email == "" || password == "" {
		return h.renderLogin(c, fiber.StatusUnauthorized, email, web.Flash{Kind: web.FlashError, Text: loginFailed})
	}
	addr := "addr:" + h.clientAddr(c)
	account := "account:" + tenants.StaffEmailKey(email) + "|" + addr
	if wait, ok := h.throttle.take(limit{account, maxFailuresAccount}, limit{addr, maxFailuresAddr}); !ok {
		h.countThrottled()
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(wait.Seconds())+1))
		p := web.ErrorPage{Layout: h.layout(c, nil, "Too many attempts", ""), Status: fiber.StatusTooManyRequests,
			Message: "Too many failed sign-in attempts from here. Wait a few minutes, then try again."}
		return h.render(c, fiber.StatusTooManyRequests, web.Error(p))
	}
	// Counted above as a failure until it succeeds, whether checked or refused for want of a
	// free check: a flood cannot buy unchecked retries.
	release, ok := h.passwordCheck()
	if !ok {
		return h.busy(c)
	}
	defer release()
	st, err := h.Store.Staff.ByEmail(c.UserContext(), email)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		h.dummy.CheckPassword(password) // as slow as a wrong password
		err = errLoginFailed
	case err != nil:
		return err
	case !st.CheckPassword(password):
		err = errLoginFailed
	}
	release()
	if err != nil {
		return h.renderLogin(c, fiber.StatusUnauthorized, email, web.Flash{Kind: web.FlashError, Text: loginFailed})
	}
	h.throttle.succeeded(account, addr)
	if msg, err := h.refusedAccount(c, st); err != nil || msg != "" {
		if err != nil {
			return err
		}
		return h.renderLogin(c, fiber.StatusForbidden, email, web.Flash{Kind: web.FlashError, Text: msg})
	}
	err = h.Store.Audit.Append(c.UserContext(), tenants.AuditEntry{Time: h.now(), TenantID: st.TenantID,
		Actor: "staff:" + st.ID, Action: tenants.ActionStaffLogin, RequestID: requestID(c)})
	if err != nil {
		return err
	}
	if _, err := h.startSession(c, st); err != nil {
		return err
	}
	clearCookie(c, loginCookie)
	if st.MustChangePassword {
		return c.Redirect(web.PathPassword, fiber.StatusSeeOther)
	}
	return c.Redirect(web.PathDashboard, fiber.StatusSeeOther)
}

var errLoginFailed = errors.New("login failed")

// refusedAccount says why a user with the right password may not sign in: disabled, or
// their tenant suspended ("" = may). Said only after the password was right, so it tells a
// guesser nothing.
func (h *handler) refusedAccount(c *fiber.Ctx, st tenants.Staff) (string, error) {
	if st.Disabled {
		return "This account is disabled. Ask an administrator of your organisation to enable it.", nil
	}
	if st.TenantID == "" {
		return "", nil
	}
	t, err := h.Store.Tenants.Get(c.UserContext(), st.TenantID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return "This account's organisation no longer exists.", nil
	case err != nil:
		return "", err
	case !t.Active():
		return "This account's organisation is suspended. Contact the service's operator.", nil
	}
	return "", nil
}

// logout ends the session, on every instance.
func (h *handler) logout(c *fiber.Ctx, s *session) error {
	if err := h.endSession(c, s); err != nil {
		return err
	}
	return c.Redirect(web.PathLogin, fiber.StatusSeeOther)
}
