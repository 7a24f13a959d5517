package admin

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

const mailchimp = "mailchimp"

func (h *handler) webhooks(c *fiber.Ctx, s *session) error {
	return h.renderWebhooks(c, s, fiber.StatusOK, "", nil, "")
}

// renderWebhooks shows the credentials; pasted, when set, is a rejected SendGrid key shown again.
func (h *handler) renderWebhooks(c *fiber.Ctx, s *session, status int, tokenName string, errs web.FieldErrors, pasted string) error {
	ctx := c.UserContext()
	list, err := h.Store.Tokens.List(ctx, s.TenantID)
	if err != nil {
		return err
	}
	t, err := h.Store.Tenants.Get(ctx, s.TenantID)
	if err != nil {
		return err
	}
	p := web.WebhooksPage{Layout: h.layout(c, s, "Webhook credentials", web.NavWebhooks), TokenName: tokenName,
		SendGridKey: t.SendGridPublicKey, SendGridKeySaved: t.SendGridPublicKey != "", Errors: errs,
		CanManage: h.Enforcer.RoleAllows(s.Staff.Role, "admin:webhooks", "write")}
	if pasted != "" {
		p.SendGridKey = pasted
	}
	if p.Deliveries, err = h.webhookDeliveries(c, s); err != nil {
		return err
	}
	for _, tok := range list {
		if tok.Provider == mailchimp {
			p.MailchimpTokens = append(p.MailchimpTokens, web.WebhookTokenItem{ID: tok.ID, Prefix: "mct_" + tok.ID,
				CreatedAt: tok.CreatedAt, RevokedAt: tok.RevokedAt})
		}
	}
	return h.render(c, status, web.Webhooks(p))
}

// tokenIssue issues a Mailchimp webhook token and shows its URL, this once.
func (h *handler) tokenIssue(c *fiber.Ctx, s *session) error {
	name := strings.TrimSpace(c.FormValue("name"))
	if utf8.RuneCountInString(name) > 100 {
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, name,
			web.FieldErrors{"name": "Use at most 100 characters."}, "")
	}
	t, plain, err := tenants.NewWebhookToken(s.TenantID, mailchimp, h.now())
	if err != nil {
		return err
	}
	if err := h.Store.Tokens.Insert(c.UserContext(), t); err != nil {
		return err
	}
	if err := h.appendAudit(c, s, tenants.ActionWebhookChanged, []string{t.ID}, "mailchimp token issued"); err != nil {
		return err
	}
	u := baseURL(c) + "/api/v1/mailchimp/unsubscribe?token=" + url.QueryEscape(plain)
	return h.render(c, fiber.StatusOK, web.WebhookTokenIssued(web.WebhookTokenIssuedPage{
		Layout: h.layout(c, s, "Mailchimp webhook token issued", web.NavWebhooks), Token: plain, URL: u}))
}

func (h *handler) tokenRevoke(c *fiber.Ctx, s *session) error {
	id := pathID(c)
	if err := h.Store.Tokens.Revoke(c.UserContext(), s.TenantID, id, h.now()); err != nil {
		return err
	}
	if err := h.appendAudit(c, s, tenants.ActionWebhookChanged, []string{id}, "mailchimp token revoked"); err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("Mailchimp webhook token revoked."))
}

// sendGridKeySave validates and stores the verification key of SendGrid's signed webhook.
func (h *handler) sendGridKeySave(c *fiber.Ctx, s *session) error {
	pasted := strings.TrimSpace(c.FormValue("public_key"))
	key, err := unsubscribe.ParsePublicKey(pasted)
	if err != nil {
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "",
			web.FieldErrors{"public_key": "This is not an ECDSA P-256 public key (base64 or PEM)."}, pasted)
	}
	if err := h.setSendGridKey(c, s, key, "sendgrid key saved"); err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("SendGrid key saved. Set the Event Webhook URL to "+sendGridURL(c, s.TenantID)))
}

func (h *handler) sendGridKeyClear(c *fiber.Ctx, s *session) error {
	if err := h.setSendGridKey(c, s, "", "sendgrid key cleared"); err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("SendGrid key cleared."))
}

func (h *handler) setSendGridKey(c *fiber.Ctx, s *session, key, detail string) error {
	if err := h.Store.Tenants.SetSendGridKey(c.UserContext(), s.TenantID, key); err != nil {
		return err
	}
	h.PurgeTenant(s.TenantID)
	return h.appendAudit(c, s, tenants.ActionWebhookChanged, nil, detail)
}
