package admin

import (
	"errors"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// smsSettings fills the page's SMS sending numbers and stop words, with the languages whose
// opt-out words the tenant's texts are read in; a refused number or list of words posted
// just now is shown again as typed.
func (h *handler) smsSettings(c *fiber.Ctx, s *session, t tenants.Tenant, p *web.WebhooksPage) error {
	ctx := c.UserContext()
	if h.Store.SMS != nil {
		numbers, err := h.Store.SMS.Numbers(ctx, s.TenantID)
		if err != nil {
			return err
		}
		for _, n := range numbers {
			p.SMSNumbers = append(p.SMSNumbers, web.SMSNumberItem{Number: n.Number, AddedAt: n.AddedAt})
		}
	}
	forms, err := h.Store.Forms.List(ctx, s.TenantID)
	if err != nil {
		return err
	}
	langs := make([]string, 0, len(forms))
	for _, f := range forms {
		langs = append(langs, f.Language)
	}
	p.SMSLanguages = unsubscribe.Languages(t.DefaultCountry, langs)
	p.SMSStopWords = strings.Join(t.SMSStopWords, ", ")
	if typed, ok := c.Locals(smsTypedKey).(smsTyped); ok {
		p.SMSNumber = typed.number
		if typed.words != nil {
			p.SMSStopWords = *typed.words
		}
	}
	return nil
}

// smsTyped is what staff typed into a refused SMS setting, shown again.
type smsTyped struct {
	number string
	words  *string
}

const smsTypedKey = "smsTyped"

// smsNumberAdd registers a number the tenant sends its SMS from.
func (h *handler) smsNumberAdd(c *fiber.Ctx, s *session) error {
	typed := strings.TrimSpace(c.FormValue("number"))
	n, added, err := h.provision().AddSMSNumber(c.UserContext(), by(c, s), s.TenantID, typed)
	if errs, ok := fieldErrors(err); ok {
		c.Locals(smsTypedKey, smsTyped{number: typed})
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", errs, "")
	}
	if err != nil {
		return err
	}
	if !added {
		return h.redirect(c, web.PathWebhooks, success(n+" was registered already."))
	}
	return h.redirect(c, web.PathWebhooks, success(n+" registered: inbound texts now apply only when sent to one of your numbers."))
}

// smsNumberRemove removes one of the tenant's sending numbers.
func (h *handler) smsNumberRemove(c *fiber.Ctx, s *session) error {
	n := strings.TrimSpace(c.FormValue("number"))
	err := h.provision().RemoveSMSNumber(c.UserContext(), by(c, s), s.TenantID, n)
	if errors.Is(err, tenants.ErrNotFound) {
		return h.redirect(c, web.PathWebhooks, web.Flash{Kind: web.FlashError, Text: "That number is not one of yours; nothing was removed."})
	}
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success(n+" removed."))
}

// smsStopWordsSave replaces the tenant's own SMS opt-out words (comma-separated; empty clears).
func (h *handler) smsStopWordsSave(c *fiber.Ctx, s *session) error {
	typed := c.FormValue("sms_stop_words")
	_, err := h.provision().SetSMSStopWords(c.UserContext(), by(c, s), s.TenantID, strings.Split(typed, ","))
	if errs, ok := fieldErrors(err); ok {
		c.Locals(smsTypedKey, smsTyped{words: &typed})
		return h.renderWebhooks(c, s, fiber.StatusUnprocessableEntity, "", errs, "")
	}
	h.PurgeTenant(s.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathWebhooks, success("SMS stop words saved."))
}
