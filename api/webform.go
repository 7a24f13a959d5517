package api

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// altchaField carries a web form's solved challenge; honeypotFields are the traps a person
// never sees and a bot fills (docs/API.md §14). Neither is a custom field: they are taken out
// of every submission before the rules read it.
const altchaField = "altcha"

// honeypotFields are the honeypot names the service understands; the hosted page uses the first.
var honeypotFields = []string{"_gotcha", "_honeypot", "honeypot"}

// takeWebFormFields removes the challenge solution and the honeypots from body and returns
// the solution (if a string) and whether a honeypot was filled.
func takeWebFormFields(body map[string]any) (solution string, trapped bool) {
	solution, _ = body[altchaField].(string)
	delete(body, altchaField)
	for _, h := range honeypotFields {
		v, ok := body[h]
		delete(body, h)
		trapped = trapped || (ok && filled(v))
	}
	return solution, trapped
}

// filled reports whether a honeypot holds anything: "", false and null are empty.
func filled(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	}
	return true
}

// challengeFailed is the 400 of a missing, wrong, expired or spent challenge.
var challengeFailed = &refusedRecord{kind: tenants.KindFormSubmission, vs: tenants.Violations{{Field: altchaField,
	Code: consent.CodeChallengeFailed, Message: "The spam challenge is missing, wrong, expired or used already."}}}

// acceptSubmission is POST /api/v1/forms/accept-submission. A filled honeypot is answered 200
// and nothing is stored; a publishable key posts only to its forms (403) and with a solved
// challenge bound to it and the form, spent once the rules pass.
func (s *server) acceptSubmission(c *fiber.Ctx) error {
	body, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	a := authOf(c)
	solution, trapped := takeWebFormFields(body)
	formID, _ := body["form_id"].(string)
	if a.key.Publishable && formID != "" && !a.key.AllowsForm(formID) {
		return forbidden("This publishable key may not submit to this form.")
	}
	if trapped {
		c.Status(fiber.StatusOK)
		return nil
	}
	way, check := ops.WaySecretKey, (func(context.Context) error)(nil)
	if a.key.Publishable {
		way = ops.WayPublishableKey
		challenge, expires, err := s.webForms.Signer.Verify(solution, ChallengePurpose(a.key.ID, formID), s.Now())
		if err != nil {
			return challengeFailed
		}
		check = func(ctx context.Context) error { return s.spendChallenge(ctx, a.tenant.ID, challenge, expires) }
	}
	id, err := s.submit(c, tenants.KindFormSubmission, body, way, check)
	if err != nil {
		return err
	}
	c.Set("X-Submission-Id", id)
	c.Status(fiber.StatusOK)
	return nil
}

// spendChallenge records the challenge as spent in the store; one spent already is a replay.
func (s *server) spendChallenge(ctx context.Context, tenantID, challenge string, expires time.Time) error {
	err := s.webForms.Challenges.Spend(ctx, tenantID, challenge, expires, s.Now())
	if errors.Is(err, tenants.ErrConflict) {
		return challengeFailed
	}
	return err
}
