package api

import (
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// submissionView is the submission shape of docs/API.md §7.1.
type submissionView struct {
	SubmissionID string             `json:"submissionId"`
	FormID       orNull             `json:"formId"`
	CreatedAt    time.Time          `json:"createdAt"`
	Contact      tenants.Contact    `json:"contact"`
	Address      tenants.Address    `json:"address"`
	Consents     recordConsentsView `json:"consents"`
	Payload      map[string]any     `json:"payload"`
	AnonymisedAt *time.Time         `json:"anonymisedAt"`
	// WithdrawURL is the person's withdrawal link (docs/API.md §13), while general contact is granted or pending.
	WithdrawURL string `json:"withdrawUrl,omitempty"`
	// PreferencesURL is the person's preference page (docs/API.md §17), while the record holds a consent.
	PreferencesURL string `json:"preferencesUrl,omitempty"`
	// Unchallenged marks a submission a public way in took without the spam challenge (a
	// hosted page's no-script fallback, docs/API.md §14).
	Unchallenged bool `json:"unchallenged,omitempty"`
}

// getSubmission is GET /api/v1/forms/submissions/{submission_id}.
func (s *server) getSubmission(c *fiber.Ctx) error {
	id := c.Params("id")
	rec, err := s.Records.Get(c.UserContext(), authOf(c).tenant.ID, tenants.KindFormSubmission, id)
	if errors.Is(err, tenants.ErrNotFound) {
		return notFound("No submission with this id.")
	}
	if err != nil {
		return err
	}
	v := submissionView{SubmissionID: rec.PublicID, FormID: orNull(rec.FormID), CreatedAt: rec.CreatedAt.UTC().Truncate(time.Second),
		Contact: rec.Contact, Address: rec.Address, Payload: rec.Payload, Unchallenged: rec.Unchallenged()}
	var l ops.RecordLinks
	v.Consents, l = s.recordConsents(c, rec)
	v.WithdrawURL, v.PreferencesURL = l.Withdraw, l.Preferences
	if v.Payload == nil {
		v.Payload = map[string]any{}
	}
	if rec.AnonymisedAt != nil {
		t := rec.AnonymisedAt.UTC().Truncate(time.Second)
		v.AnonymisedAt = &t
	}
	return c.JSON(v)
}

// getConsents is GET /api/v1/consents?email=|phone= (docs/API.md §7.2).
func (s *server) getConsents(c *fiber.Ctx) error {
	// An unencoded '+' in a query string reads as a space: "?phone=+4915..." must still work.
	phone := c.Query("phone")
	if strings.HasPrefix(phone, " ") {
		phone = "+" + strings.TrimLeft(phone, " ")
	}
	id, err := identity(c.Query("email"), phone, "email", "phone", authOf(c).tenant.DefaultCountry)
	if err != nil {
		return err
	}
	out, err := s.Persons.Consents(c.UserContext(), authOf(c).tenant.ID, id)
	if err != nil {
		return err
	}
	return c.JSON(viewPersonConsents(out))
}

// identity validates an e-mail and/or phone given by a client; the field names are the
// request's own, for the messages; country is the tenant's default country.
func identity(email, phone, emailField, phoneField, country string) (ops.Identity, error) {
	id, vs := ops.NewIdentity(email, phone, country)
	if len(vs) == 0 {
		return id, nil
	}
	// The rules are ops.NewIdentity's; the messages and fields are the API's (docs/API.md §3.4).
	switch v := vs[0]; {
	case v.Code == "required":
		return id, validation("At least one of "+emailField+" or "+phoneField+" must be provided.", "")
	case v.Field == "email":
		return id, validation(emailField+" is not a valid e-mail address.", emailField)
	default:
		return id, validation(phoneField+" is not a valid phone number in international form (+ or 00, country code, number).", phoneField)
	}
}
