package api

import (
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/gofiber/fiber/v2"
)

// WebhookRecorder hears of each inbound unsubscribe webhook delivery (docs/API.md §8.4). Its
// methods only note the delivery in memory: no store write on the request path.
type WebhookRecorder interface {
	Delivered(tenantID, provider string, events, unsubscribed int)
	Refused(tenantID, provider, reason string)
}

// Locals of the diagnostics: what the handler did, or why a credential was refused.
const (
	deliveryKey = "webhookDelivery"
	refusalKey  = "webhookRefusal"
)

type delivery struct{ events, unsubscribed int }

type refusal struct{ tenantID, reason string }

// refuse notes why the delivery was refused, for the tenant it names, and returns err.
func refuse(c *fiber.Ctx, tenantID, reason string, err error) error {
	c.Locals(refusalKey, refusal{tenantID, reason})
	return err
}

// diagnoseRoutes records every POST to the unsubscribe paths in the diagnostics; it runs
// before each path's own credential check.
func (s *server) diagnoseRoutes(v1 fiber.Router) {
	if s.Diagnostics == nil {
		return
	}
	for _, p := range unsubscribe.AllProviders() {
		v1.Use("/"+p+"/unsubscribe", func(c *fiber.Ctx) error {
			if c.Method() != fiber.MethodPost && (p != "vonage" || c.Method() != fiber.MethodGet) {
				return c.Next()
			}
			err := c.Next()
			s.recordDelivery(c, p, err)
			return err
		})
	}
}

// recordDelivery notes an accepted delivery, or a refused one whose tenant is known: a
// credential that names no tenant (an unknown key or token id) has nobody to report to.
func (s *server) recordDelivery(c *fiber.Ctx, provider string, err error) {
	if r, ok := c.Locals(refusalKey).(refusal); ok {
		s.Diagnostics.Refused(r.tenantID, provider, r.reason)
		return
	}
	a, _ := c.Locals(authKey).(*auth)
	if a == nil {
		return
	}
	var e *Error
	switch {
	case err == nil:
		if d, ok := c.Locals(deliveryKey).(delivery); ok {
			s.Diagnostics.Delivered(a.tenant.ID, provider, d.events, d.unsubscribed)
		}
	case errors.As(err, &e) && e.Status == fiber.StatusForbidden:
		s.Diagnostics.Refused(a.tenant.ID, provider, tenants.RefusedWrongScope)
	}
}

// sendgridRefusal is the reason of a refused SendGrid signature.
func sendgridRefusal(err error) string {
	if unsubscribe.IsStaleTimestamp(err) {
		return tenants.RefusedStaleTimestamp
	}
	return tenants.RefusedBadSignature
}
