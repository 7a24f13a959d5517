package api

import (
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// recordConsentView is one consent in the record read: as everywhere, plus the pending
// status and its confirmation link, and the proof of a confirmation.
type recordConsentView struct {
	consentView
	ConfirmationURL string     `json:"confirmationUrl,omitempty"`
	ConfirmedAt     *time.Time `json:"confirmedAt,omitempty"`
}

// recordConsentsView is a record's three consents in the record read.
type recordConsentsView struct {
	PrimaryPurpose      recordConsentView `json:"primaryPurpose"`
	GeneralContactEmail recordConsentView `json:"generalContactEmail"`
	GeneralContactPhone recordConsentView `json:"generalContactPhone"`
}

// recordConsents renders rec's consents for the record read, with its links.
func (s *server) recordConsents(c *fiber.Ctx, rec tenants.Record) (recordConsentsView, ops.RecordLinks) {
	now := s.Now()
	l := s.Links.Links(c.UserContext(), rec)
	base := viewConsents(ops.ViewConsents(rec.Consents, now))
	one := func(name tenants.ConsentName, v consentView) recordConsentView {
		con := rec.Consents.ByName(name)
		out := recordConsentView{consentView: v, ConfirmationURL: l.Confirm[name]}
		if con.PendingAt(now) {
			out.Status = tenants.StatusPending
		}
		if con.Confirmation != nil {
			at := con.Confirmation.At.UTC().Truncate(time.Second)
			out.ConfirmedAt = &at
		}
		return out
	}
	return recordConsentsView{one(tenants.ConsentPrimaryPurpose, base.PrimaryPurpose),
		one(tenants.ConsentGeneralContactEmail, base.GeneralContactEmail),
		one(tenants.ConsentGeneralContactPhone, base.GeneralContactPhone)}, l
}

// plainConsents is consents in the record read's shape without links or pending: the access
// export reads a pending consent as not granted, as every list does.
func plainConsents(c consentsView) recordConsentsView {
	return recordConsentsView{recordConsentView{consentView: c.PrimaryPurpose}, recordConsentView{consentView: c.GeneralContactEmail},
		recordConsentView{consentView: c.GeneralContactPhone}}
}

// resendConfirmation is POST /api/v1/forms/submissions/{submission_id}/resend-confirmation: the
// pending e-mail confirmation mailed again (202); 409 when nothing waits for confirmation or the
// tenant has no mail server.
func (s *server) resendConfirmation(c *fiber.Ctx) error {
	a := authOf(c)
	err := s.Confirmations.ResendConfirmation(c.UserContext(), a.tenant.ID, a.actor, requestID(c), c.Params("id"))
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return notFound("No submission with this id.")
	case errors.Is(err, ops.ErrNothingPending):
		return &Error{Status: fiber.StatusConflict, Kind: "Conflict", Code: "nothing_pending",
			Message: "This submission has no e-mail consent waiting for its confirmation."}
	case errors.Is(err, ops.ErrNoMailServer):
		return &Error{Status: fiber.StatusConflict, Kind: "Conflict", Code: "no_mail_server",
			Message: "This organisation has set no mail server (consentforms tenant set-smtp), so the service sends no mail."}
	case err != nil:
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"submissionId": c.Params("id"), "resent": true})
}
