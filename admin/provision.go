package admin

import (
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// provision runs the provisioning operations (tenants, keys, forms, staff, webhook
// credentials): the same ones, wired the same way, as the CLI's.
func (h *handler) provision() *provision.Service { return h.Provision }

// by is the signed-in user as the audit log names them, with the request they sent.
func by(c *fiber.Ctx, s *session) provision.Actor {
	return provision.Actor{Name: actor(s), RequestID: requestID(c)}
}

// fieldErrors maps refusals onto the form errors shown beside each input (Field is the
// input's name); ok is false when err is no refusal. The first refusal of an input wins.
func fieldErrors(err error) (errs web.FieldErrors, ok bool) {
	var vs tenants.Violations
	if !errors.As(err, &vs) {
		return nil, false
	}
	return addViolations(web.FieldErrors{}, vs), true
}

// addViolations adds vs to errs, leaving an input that has an error as it is.
func addViolations(errs web.FieldErrors, vs []tenants.Violation) web.FieldErrors {
	for _, v := range vs {
		if _, set := errs[v.Field]; !set {
			errs[v.Field] = v.Message
		}
	}
	return errs
}
