package admin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// The tenant's outgoing mail server on the webhooks page: shown without its password, set
// (sealed, as tenant set-smtp does) and tried with a test mail whose answer the page shows.

// mailTypedKey holds the settings typed into a refused form, mailTestKey a test's outcome.
const (
	mailTypedKey = "mailServerTyped"
	mailTestKey  = "mailServerTest"
)

// mailSettings fills the page's mail server section.
func (h *handler) mailSettings(c *fiber.Ctx, s *session, p *web.WebhooksPage) error {
	if h.Mail == nil {
		return nil
	}
	ms, at, err := h.Mail.MailServer(c.UserContext(), s.TenantID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		p.MailForm = web.MailServerView{Port: 587, TLS: "starttls"}
	case err != nil:
		return err
	default:
		v := web.MailServerView{Host: ms.Host, Port: ms.Port, TLS: ms.TLS, User: ms.User, From: ms.From, ReplyTo: ms.ReplyTo, SetAt: at}
		p.MailServer, p.MailForm = &v, v
	}
	if typed, ok := c.Locals(mailTypedKey).(web.MailServerView); ok {
		p.MailForm = typed
	}
	if r, ok := c.Locals(mailTestKey).(web.MailTestResult); ok {
		p.MailTest = &r
	}
	return nil
}

// mailServerSave stores the mail server the form sets; a refused setting shows the form again
// with what was typed (never the password) and why.
func (h *handler) mailServerSave(c *fiber.Ctx, s *session) error {
	port, _ := strconv.Atoi(strings.TrimSpace(c.FormValue("port")))
	ms := tenants.MailServer{Host: strings.TrimSpace(c.FormValue("host")), Port: port, TLS: strings.ToLower(strings.TrimSpace(c.FormValue("tls"))),
		User: strings.TrimSpace(c.FormValue("user")), Password: c.FormValue("password"), From: strings.TrimSpace(c.FormValue("from")),
		ReplyTo: strings.TrimSpace(c.FormValue("reply_to"))}
	err := h.provision().SetMailServer(c.UserContext(), by(c, s), s.TenantID, ms)
	if errs, ok := fieldErrors(err); ok {
		c.Locals(mailTypedKey, web.MailServerView{Host: ms.Host, Port: ms.Port, TLS: ms.TLS, User: ms.User, From: ms.From, ReplyTo: ms.ReplyTo})
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", errs, "")
	}
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("Mail server saved: "+ms.Host+". Send a test mail to check it."))
}

// mailTest sends a test mail through the tenant's server and shows the server's answer.
func (h *handler) mailTest(c *fiber.Ctx, s *session) error {
	to, ok := contact.NormaliseEmail(c.FormValue("to"))
	if !ok {
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", web.FieldErrors{"to": "Give the address to send the test mail to."}, "")
	}
	if h.Mail == nil {
		return fiber.ErrNotFound
	}
	answer, took, err := h.Mail.TestMail(c.UserContext(), s.TenantID, to)
	if errors.Is(err, tenants.ErrNotFound) {
		return h.renderWebhooks(c, s, fiber.StatusConflict, "", web.FieldErrors{"to": "Set the mail server first."}, "")
	}
	if err != nil {
		return err
	}
	c.Locals(mailTestKey, web.MailTestResult{OK: took, Answer: answer})
	return h.renderWebhooks(c, s, fiber.StatusOK, "", nil, "")
}
