package ops

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// ErrNothingPending: the record has no e-mail consent waiting for its confirmation (or it was
// erased), so there is no confirmation to send again.
var ErrNothingPending = errors.New("nothing waits for confirmation")

// ErrNoMailServer: the tenant has set no mail server, so the service sends no mail.
var ErrNoMailServer = errors.New("no mail server set")

// resendScan bounds the mail deliveries read to find a record's confirmation (newest first):
// a pending consent is at most its confirmation period old, well within it.
const resendScan = 5000

// ResendConfirmation mails the confirmation of the record's pending e-mail consent again, at
// once: its delivery to the tenant's mail endpoint is made due again (or made, where the mail
// server was set after the submission). The link is the same; the audit entry
// consent.confirmation_resent names the record and who asked.
func (s *LinkPages) ResendConfirmation(ctx context.Context, tenantID, actor, requestID, publicID string) error {
	rec, err := s.Records.Get(ctx, tenantID, tenants.KindFormSubmission, publicID)
	if err != nil {
		return err
	}
	now := s.Now()
	if rec.AnonymisedAt != nil || !rec.Consents.GeneralContactEmail.PendingAt(now) {
		return ErrNothingPending
	}
	ep, err := s.mailEndpoint(ctx, tenantID)
	if err != nil {
		return err
	}
	name := tenants.ConsentGeneralContactEmail
	ev := webhook.ConfirmationRequested(rec, name, s.PersonLinks.ConfirmURL(ctx, rec, name), s.PersonLinks.WithdrawURL(ctx, rec, now))
	dls, err := s.Outbox.Deliveries(ctx, tenantID, ep.ID, resendScan)
	if err != nil {
		return err
	}
	queued := false
	for _, dl := range dls {
		if dl.EventID == ev.ID {
			dl.Status, dl.NextAt, dl.LastResult = tenants.DeliveryPending, now, "resend asked"
			if err := s.Outbox.Update(ctx, dl); err != nil {
				return err
			}
			queued = true
			break
		}
	}
	if !queued {
		dl := tenants.Delivery{EndpointID: ep.ID, EventID: ev.ID, TenantID: tenantID, Type: ev.Type, Payload: ev.Payload,
			CreatedAt: now, Status: tenants.DeliveryPending, NextAt: now}
		if err := s.Outbox.Fan(ctx, []tenants.Fanned{{Event: ev, Deliveries: []tenants.Delivery{dl}}}); err != nil {
			return err
		}
	}
	return s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor, Action: tenants.ActionConfirmationResent,
		RecordIDs: []string{rec.PublicID}, Detail: string(name), RequestID: requestID})
}

// mailEndpoint is the tenant's mail endpoint; ErrNoMailServer when it has none.
func (s *LinkPages) mailEndpoint(ctx context.Context, tenantID string) (tenants.Endpoint, error) {
	eps, err := s.Outbox.Endpoints(ctx, tenantID)
	if err != nil {
		return tenants.Endpoint{}, err
	}
	for _, e := range eps {
		if e.URL == tenants.MailEndpointURL {
			return e, nil
		}
	}
	return tenants.Endpoint{}, ErrNoMailServer
}
