package api

import (
	"errors"
	"fmt"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/gofiber/fiber/v2"
)

// SendGrid's signed event webhook headers.
const (
	sendgridSignature = "X-Twilio-Email-Event-Webhook-Signature"
	sendgridTimestamp = "X-Twilio-Email-Event-Webhook-Timestamp"
)

// webhookAuth is the credential check of provider's unsubscribe path: an API key allowed act
// on obj, or the credential that provider can present (docs/API.md §8.3).
func (s *server) webhookAuth(provider, obj, act string) fiber.Handler {
	switch provider {
	case "mailjet", "postmark":
		return s.keyWith(obj, act, bearerOrBasic)
	case "mailchimp":
		return s.mailchimpAuth(obj, act)
	case "sendgrid":
		return s.sendgridAuth(obj, act)
	case "twilio", "telnyx", "vonage":
		return s.smsAuth(provider, obj, act)
	}
	return s.key(obj, act)
}

// mailchimpAuth accepts the bearer key or the tenant's webhook token in ?token=.
func (s *server) mailchimpAuth(obj, act string) fiber.Handler {
	key := s.key(obj, act)
	return func(c *fiber.Ctx) error {
		token := c.Query("token")
		if token == "" || c.Get(fiber.HeaderAuthorization) != "" {
			return key(c)
		}
		denied := unauthorized("Invalid or revoked webhook token.")
		id, secret, ok := tenants.ParseWebhookToken(token)
		if !ok {
			return denied
		}
		t, err := s.Tokens.Lookup(c.UserContext(), id)
		if errors.Is(err, tenants.ErrNotFound) {
			return denied
		}
		if err != nil {
			return err
		}
		if t.Provider != "mailchimp" {
			return refuse(c, t.TenantID, tenants.RefusedWrongScope, denied)
		}
		if !t.Verify(secret) {
			return refuse(c, t.TenantID, tenants.RefusedUnknownToken, denied)
		}
		s.touch(usedCredential{kindToken, t.ID}, s.Now())
		return s.admitTenant(c, t.TenantID, "token:"+t.ID, obj, act)
	}
}

// sendgridAuth accepts the bearer key, one of our OAuth access tokens (SendGrid's OAuth
// option), or SendGrid's signed event webhook, verified with the public key of the tenant
// named in ?tenant=.
func (s *server) sendgridAuth(obj, act string) fiber.Handler {
	key := s.key(obj, act)
	return func(c *fiber.Ctx) error {
		if raw := bearerJWT(c.Get(fiber.HeaderAuthorization)); raw != "" {
			return s.sendgridBearer(c, raw, obj, act)
		}
		sig := c.Get(sendgridSignature)
		if sig == "" || c.Get(fiber.HeaderAuthorization) != "" {
			return key(c)
		}
		denied := unauthorized("Invalid SendGrid webhook signature.")
		t, err := s.Tenants.Get(c.UserContext(), c.Query("tenant"))
		if errors.Is(err, tenants.ErrNotFound) {
			return denied
		}
		if err != nil {
			return err
		}
		if t.SendGridPublicKey == "" {
			return refuse(c, t.ID, tenants.RefusedBadSignature, denied)
		}
		if err := s.loadBody(c, s.public); err != nil {
			return err
		}
		if err := unsubscribe.VerifySendGrid(t.SendGridPublicKey, sig, c.Get(sendgridTimestamp), c.Body(), s.Now()); err != nil {
			return refuse(c, t.ID, sendgridRefusal(err), denied)
		}
		return s.admitTenant(c, t.ID, "sendgrid:"+t.ID, obj, act)
	}
}

// admitTenant admits a webhook credential that is good for its unsubscribe path alone.
func (s *server) admitTenant(c *fiber.Ctx, tenantID, actor, obj, act string) error {
	t, err := s.Tenants.Get(c.UserContext(), tenantID)
	if errors.Is(err, tenants.ErrNotFound) {
		return unauthorized("Unknown tenant.")
	}
	if err != nil {
		return err
	}
	if !t.Active() {
		return unauthorized("The tenant is suspended.")
	}
	return s.admit(c, &auth{tenant: t, scopes: []string{tenants.ScopeUnsubscribeWrite}, actor: actor}, obj, act)
}

// unsubscribe handles one provider's unsubscribe path: the generic body or the provider's
// own events; events that are not unsubscribes change nothing and are answered 200.
func (s *server) unsubscribe(provider string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ct, body := webhookBody(c)
		res, err := unsubscribe.Parse(provider, ct, body)
		if err != nil {
			c.Locals(refusalKey, refusal{authOf(c).tenant.ID, tenants.RefusedMalformedBody})
		}
		switch {
		case errors.Is(err, unsubscribe.ErrTooManyEvents):
			return &Error{Status: fiber.StatusRequestEntityTooLarge, Kind: "PayloadTooLarge", Code: "too_many_events",
				Message: fmt.Sprintf("One request carries at most %d events; send the rest in further requests.", unsubscribe.MaxEvents)}
		case errors.Is(err, unsubscribe.ErrNoIdentifier):
			return validation("At least one of email or phone must be provided.", "")
		case err != nil:
			return &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Code: "invalid_body",
				Message: "The body is neither {email, phone} JSON nor a " + provider + " unsubscribe webhook."}
		}
		if res.PhoneOnly {
			return s.smsOptOut(c, provider, res)
		}
		a := authOf(c)
		// Each event counts against the key's rate limit: the request took one token, the
		// others are charged now (the bucket may go into debt, so later requests wait).
		s.limiter.charge(a.actor, a.tenant.Limit(), len(res.Events)-1, s.Now())
		s.limiter.charge(tenantBucket(a.tenant.ID), s.tenantRate(a.tenant), len(res.Events)-1, s.Now())
		ids := make([]ops.Identity, len(res.Events))
		for i, ev := range res.Events {
			if ids[i], err = eventIdentity(ev, res.Generic, a.tenant.DefaultCountry); err != nil {
				return refuse(c, a.tenant.ID, tenants.RefusedMalformedBody, err)
			}
		}
		revoked, err := s.Persons.UnsubscribeAll(c.UserContext(), a.tenant.ID, a.actor, provider, requestID(c), ids)
		if err != nil {
			return err
		}
		c.Locals(deliveryKey, delivery{events: len(res.Events) + res.Ignored, unsubscribed: revoked})
		return c.JSON(fiber.Map{"success": true, "message": fmt.Sprintf(
			"%d revoked: general contact consent withdrawn on %d matching submission(s); other consents unchanged.", revoked, revoked)})
	}
}

// eventIdentity normalises an event's identifiers. In the generic body a malformed value is
// the client's error; in a provider's event it is skipped, so the provider does not retry.
func eventIdentity(ev unsubscribe.Event, generic bool, country string) (ops.Identity, error) {
	if generic {
		return identity(ev.Email, ev.Phone, "email", "phone", country)
	}
	return ops.EventIdentity(ev, country), nil
}
