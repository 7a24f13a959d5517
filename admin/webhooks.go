package admin

import (
	"net/url"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

func (h *handler) webhooks(c *fiber.Ctx, s *session) error {
	return h.renderWebhooks(c, s, fiber.StatusOK, "", nil, "")
}

// renderWebhooksSMS shows the page again with the refusal of an SMS provider's secret.
func (h *handler) renderWebhooksSMS(c *fiber.Ctx, s *session, provider string, errs web.FieldErrors) error {
	c.Locals(smsRefusalKey, smsRefusal{provider, errs})
	return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", nil, "")
}

// smsRefusal is a refused SMS secret, shown again beside its provider.
type smsRefusal struct {
	provider string
	errs     web.FieldErrors
}

const smsRefusalKey = "smsSecretRefusal"

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
		CanManage: h.may(s, permWebhooksWrite)}
	if pasted != "" {
		p.SendGridKey = pasted
	}
	if p.Deliveries, err = h.webhookDeliveries(c, s); err != nil {
		return err
	}
	r, _ := c.Locals(smsRefusalKey).(smsRefusal)
	if p.SMSSecrets, err = h.smsSecrets(c, s, r.provider, r.errs); err != nil {
		return err
	}
	if err := h.smsSettings(c, s, t, &p); err != nil {
		return err
	}
	if err := h.mailSettings(c, s, &p); err != nil {
		return err
	}
	for _, tok := range list {
		if tok.Provider == provision.ProviderMailchimp {
			p.MailchimpTokens = append(p.MailchimpTokens, web.WebhookTokenItem{ID: tok.ID, Name: tok.Name, Prefix: "mct_" + tok.ID,
				CreatedAt: tok.CreatedAt, LastUsedAt: tok.LastUsedAt, RevokedAt: tok.RevokedAt})
		}
	}
	return h.render(c, status, web.Webhooks(p))
}

// tokenIssue issues a Mailchimp webhook token and shows its URL, this once.
func (h *handler) tokenIssue(c *fiber.Ctx, s *session) error {
	name := strings.TrimSpace(c.FormValue("name"))
	_, plain, err := h.provision().IssueToken(c.UserContext(), by(c, s),
		provision.TokenInput{TenantID: s.TenantID, Provider: provision.ProviderMailchimp, Name: name})
	if errs, ok := fieldErrors(err); ok {
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, name, errs, "")
	}
	if err != nil {
		return err
	}
	u := h.baseURL(c) + "/api/v1/mailchimp/unsubscribe?token=" + url.QueryEscape(plain)
	return h.render(c, fiber.StatusOK, web.WebhookTokenIssued(web.WebhookTokenIssuedPage{
		Layout: h.layout(c, s, "Mailchimp webhook token issued", web.NavWebhooks), Token: plain, URL: u}))
}

func (h *handler) tokenRevoke(c *fiber.Ctx, s *session) error {
	if err := h.provision().RevokeToken(c.UserContext(), by(c, s), s.TenantID, pathID(c)); err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("Mailchimp webhook token revoked."))
}

// sendGridKeySave validates and stores the verification key of SendGrid's signed webhook.
func (h *handler) sendGridKeySave(c *fiber.Ctx, s *session) error {
	pasted := strings.TrimSpace(c.FormValue("public_key"))
	err := h.provision().SetSendGridKey(c.UserContext(), by(c, s), s.TenantID, pasted)
	if errs, ok := fieldErrors(err); ok {
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", errs, pasted)
	}
	h.PurgeTenant(s.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("SendGrid key saved. Set the Event Webhook URL to "+h.sendGridURL(c, s.TenantID)))
}

func (h *handler) sendGridKeyClear(c *fiber.Ctx, s *session) error {
	err := h.provision().ClearSendGridKey(c.UserContext(), by(c, s), s.TenantID)
	h.PurgeTenant(s.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("SendGrid key cleared."))
}

// smsSecretLabels name each SMS provider and the secret it needs, as staff read them.
var smsSecretLabels = map[string][2]string{
	"twilio": {"Twilio", "Auth token"},
	"telnyx": {"Telnyx", "Public key (base64)"},
	"vonage": {"Vonage", "Signature secret"},
}

// smsSecrets says per SMS provider whether and when its secret was set; refused is the
// provider whose posted secret was refused, with errs.
func (h *handler) smsSecrets(c *fiber.Ctx, s *session, refused string, errs web.FieldErrors) ([]web.SMSSecretItem, error) {
	var stored []tenants.SMSSecret
	if h.Store.SMS != nil {
		var err error
		if stored, err = h.Store.SMS.Secrets(c.UserContext(), s.TenantID); err != nil {
			return nil, err
		}
	}
	var out []web.SMSSecretItem
	for _, p := range unsubscribe.SMSProviders() {
		item := web.SMSSecretItem{Provider: p, Label: smsSecretLabels[p][0], SecretName: smsSecretLabels[p][1]}
		for _, st := range stored {
			if st.Provider == p {
				at := st.SetAt
				item.SetAt = &at
			}
		}
		if p == refused {
			item.Error = errs.Get("secret")
		}
		out = append(out, item)
	}
	return out, nil
}

// smsSecretSave stores an SMS provider's webhook secret, sealed; the page shows only when.
func (h *handler) smsSecretSave(c *fiber.Ctx, s *session) error {
	provider := c.Params("provider")
	if _, ok := smsSecretLabels[provider]; !ok || h.Provision.SecretsKeys == nil {
		return fiber.ErrNotFound
	}
	err := h.provision().SetSMSSecret(c.UserContext(), by(c, s), s.TenantID, provider, c.FormValue("secret"))
	if errs, ok := fieldErrors(err); ok {
		return h.renderWebhooksSMS(c, s, provider, errs)
	}
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success(smsSecretLabels[provider][0]+" secret saved. Set the inbound webhook URL to "+h.tenantWebhookURL(c, provider, s.TenantID)))
}
