package admin

import (
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// passwordPage shows the form that changes the user's own password.
func (h *handler) passwordPage(c *fiber.Ctx, s *session) error {
	return h.renderPassword(c, s, fiber.StatusOK, nil)
}

func (h *handler) renderPassword(c *fiber.Ctx, s *session, status int, errs web.FieldErrors) error {
	p := web.PasswordPage{Layout: h.layout(c, s, "Change your password", ""), Required: s.Staff.MustChangePassword, Errors: errs}
	return h.render(c, status, web.Password(p))
}

// passwordChange sets a new password after checking the current one. Every other session
// of the user ends, on every instance; this one goes on.
func (h *handler) passwordChange(c *fiber.Ctx, s *session) error {
	current, password, confirm := c.FormValue("current"), c.FormValue("password"), c.FormValue("confirm")
	errs := web.FieldErrors{}
	switch {
	case !tenants.ValidPassword(password):
		errs["password"] = provision.PasswordHint
	case password == current:
		errs["password"] = "Choose a password other than the current one."
	case confirm != password:
		errs["confirm"] = "The two new passwords differ."
	}
	// The current password is checked under the sign-in throttle: a stolen session must not
	// become a way to guess it.
	release, ok := h.passwordCheck()
	if !ok {
		return h.busy(c)
	}
	defer release()
	addr := "addr:" + h.clientAddr(c)
	account := "password:" + s.Staff.ID + "|" + addr
	if _, ok := h.throttle.take(limit{account, maxFailuresAccount}, limit{addr, maxFailuresAddr}); !ok {
		errs["current"] = "Too many wrong passwords. Wait a few minutes, then try again."
	} else if !s.Staff.CheckPassword(current) {
		errs["current"] = "This is not your current password."
	} else {
		h.throttle.succeeded(account, addr)
	}
	if len(errs) > 0 {
		return h.renderPassword(c, s, fiber.StatusUnprocessableEntity, errs)
	}
	if err := h.provision().SetStaffPassword(c.UserContext(), by(c, s), s.Staff, password, false, sessionRef(s.SessionID)); err != nil {
		return err
	}
	return h.redirect(c, web.PathDashboard, success("Password changed. Your other sessions are signed out."))
}
