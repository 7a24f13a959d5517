package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/gofiber/fiber/v2"
)

// SMSSecrets opens a tenant's SMS provider secret (tenants.ErrNotFound when none is set).
type SMSSecrets interface {
	Secret(ctx context.Context, tenantID, provider string) (string, error)
}

// The SMS providers' signature headers.
const (
	twilioSignature = "X-Twilio-Signature"
	telnyxSignature = "telnyx-signature-ed25519"
	telnyxTimestamp = "telnyx-timestamp"
)

// twiml is Twilio's empty answer: no reply is sent to the texter.
const twiml = `<?xml version="1.0" encoding="UTF-8"?><Response/>`

// smsAuth accepts the bearer key, or the provider's own signature verified with the secret of
// the tenant named in ?tenant= (docs/PROVIDERS.md): a bad or missing one is refused 401 and
// shown in that tenant's webhook diagnostics.
func (s *server) smsAuth(provider, obj, act string) fiber.Handler {
	key := s.key(obj, act)
	return func(c *fiber.Ctx) error {
		jwt := ""
		if scheme, v, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " "); provider == "vonage" &&
			strings.EqualFold(scheme, "Bearer") && unsubscribe.LooksLikeJWT(strings.TrimSpace(v)) {
			jwt = strings.TrimSpace(v)
		}
		tenantID := c.Query("tenant")
		if jwt == "" && (c.Get(fiber.HeaderAuthorization) != "" || tenantID == "") {
			return key(c)
		}
		name := strings.ToUpper(provider[:1]) + provider[1:]
		denied := unauthorized("Invalid or missing " + name + " webhook signature.")
		t, err := s.Tenants.Get(c.UserContext(), tenantID)
		if errors.Is(err, tenants.ErrNotFound) {
			return denied
		}
		if err != nil {
			return err
		}
		if err := s.loadBody(c, s.public); err != nil {
			return err
		}
		var secret string
		if s.SMSSecrets != nil {
			secret, err = s.SMSSecrets.Secret(c.UserContext(), t.ID, provider)
		}
		switch {
		case s.SMSSecrets == nil || errors.Is(err, tenants.ErrNotFound):
			return refuse(c, t.ID, tenants.RefusedNoSecret, unauthorized(name+" webhooks are not set up for this organisation: set its secret first."))
		case err != nil:
			return err
		}
		if err := s.verifySMS(c, provider, secret, jwt); err != nil {
			return refuse(c, t.ID, sendgridRefusal(err), denied)
		}
		return s.admitTenant(c, t.ID, provider+":"+t.ID, obj, act)
	}
}

// verifySMS checks the provider's signature of the request with the tenant's secret.
func (s *server) verifySMS(c *fiber.Ctx, provider, secret, jwt string) error {
	ct, body := webhookBody(c)
	switch provider {
	case "twilio":
		form := url.Values{}
		if !isJSON(ct) {
			var err error
			if form, err = url.ParseQuery(string(body)); err != nil {
				return unsubscribe.ErrBadSignature
			}
		}
		return unsubscribe.VerifyTwilio(secret, c.Get(twilioSignature), s.publicURL(c), form)
	case "telnyx":
		return unsubscribe.VerifyTelnyx(secret, c.Get(telnyxSignature), c.Get(telnyxTimestamp), body, s.Now())
	}
	if jwt != "" {
		return unsubscribe.VerifyVonageJWT(secret, jwt, body, s.Now())
	}
	return unsubscribe.VerifyVonageSig(secret, vonageParams(c, ct, body), s.Now())
}

// vonageParams are the parameters Vonage signed: the query (less our own tenant parameter),
// and the form or JSON fields of a POST.
func vonageParams(c *fiber.Ctx, ct string, body []byte) map[string]string {
	out := map[string]string{}
	for k, v := range c.Request().URI().QueryArgs().All() {
		out[string(k)] = string(v)
	}
	delete(out, "tenant")
	if c.Method() != fiber.MethodPost {
		return out
	}
	if isJSON(ct) {
		var f map[string]json.RawMessage
		if json.Unmarshal(body, &f) == nil {
			for k, raw := range f {
				var str string
				if json.Unmarshal(raw, &str) == nil {
					out[k] = str
				} else if len(raw) > 0 && raw[0] != '{' && raw[0] != '[' {
					out[k] = string(raw)
				}
			}
		}
		return out
	}
	if form, err := url.ParseQuery(string(body)); err == nil {
		for k := range form {
			out[k] = form.Get(k)
		}
	}
	return out
}

// publicURL is the URL the provider requested, as it saw it: CONSENTFORMS_PUBLIC_URL (its
// path a prefix) with the request's path and query when set, else the request's own URL, its
// scheme and host from X-Forwarded-Proto/-Host only when a trusted proxy sent them.
func (s *server) publicURL(c *fiber.Ctx) string {
	if s.PublicURL != "" {
		return strings.TrimRight(s.PublicURL, "/") + c.OriginalURL()
	}
	return c.Protocol() + "://" + c.Hostname() + c.OriginalURL()
}

// webhookBody is the request's body and content type as a provider sent it: a GET (Vonage's
// inbound SMS may use one) carries its fields in the query.
func webhookBody(c *fiber.Ctx) (string, []byte) {
	if c.Method() == fiber.MethodGet {
		return fiber.MIMEApplicationForm, c.Request().URI().QueryString()
	}
	ct := c.Get(fiber.HeaderContentType)
	// Clients that post JSON without saying so (curl -d sends a form type) are read as JSON.
	if b := strings.TrimSpace(string(c.Body())); len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		ct = fiber.MIMEApplicationJSON
	}
	return ct, c.Body()
}

func isJSON(ct string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), fiber.MIMEApplicationJSON)
}

// smsOptOut applies the inbound messages of an SMS provider's body by the tenant's rules
// (ops.ApplySMS): an opt-out revokes general contact by phone on the records that belong to
// the sender's number; START is audited and grants nothing; any other text changes nothing.
// Twilio gets the empty TwiML it expects, the others a JSON answer.
func (s *server) smsOptOut(c *fiber.Ctx, provider string, res unsubscribe.Result) error {
	a := authOf(c)
	out, err := s.Persons.ApplySMS(c.UserContext(), a.tenant.ID, a.actor, provider, requestID(c), res.Messages)
	if err != nil {
		return err
	}
	c.Locals(deliveryKey, delivery{events: len(res.Messages) + res.Ignored, unsubscribed: out.Revoked})
	if provider == "twilio" {
		c.Set(fiber.HeaderContentType, "text/xml")
		return c.SendString(twiml)
	}
	msg := fmt.Sprintf("%d revoked: general contact by phone withdrawn on %d matching submission(s); other consents unchanged.", out.Revoked, out.Revoked)
	if out.OptOuts == 0 {
		msg = "0 revoked: no opt-out to apply (another text, not sent to one of this organisation's numbers, or applied before); nothing changed."
	}
	return c.JSON(fiber.Map{"success": true, "message": msg})
}
