package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/sealed"
)

// SMSOptOut is one inbound SMS opt-out: the sender's number (E.164) and the provider's
// message id ("" when the body carried none).
type SMSOptOut struct {
	Phone     string
	MessageID string
}

// OptOutMessages applies inbound SMS opt-outs from provider: each revokes general contact by
// phone on the records that belong to its number. A message whose id was applied before
// (the provider retried it, or someone replayed it) changes nothing and writes no audit
// entry, even where a new grant was given since. An id is remembered after its revocation is
// stored, so a crash in between makes the retry apply it again, which changes nothing twice.
func (s *Service) OptOutMessages(ctx context.Context, tenantID, actor, provider, requestID string, msgs []SMSOptOut) (int, error) {
	revoked := 0
	for _, m := range msgs {
		if m.Phone == "" {
			continue
		}
		if m.MessageID != "" && s.SMS != nil {
			seen, err := s.SMS.MessageSeen(ctx, tenantID, provider, m.MessageID)
			if err != nil {
				return revoked, wrap("sms opt-out", err)
			}
			if seen {
				continue
			}
		}
		n, err := s.RevokeContact(ctx, tenantID, actor, provider, requestID, []Identity{{Phone: m.Phone}}, PhoneChannel)
		if err != nil {
			return revoked, err
		}
		revoked += n
		if m.MessageID != "" && s.SMS != nil {
			if err := s.SMS.RememberMessage(ctx, tenantID, provider, m.MessageID, s.Now()); err != nil {
				return revoked, wrap("sms opt-out", err)
			}
		}
	}
	return revoked, nil
}

// SMSSecrets opens the tenants' SMS provider secrets, sealed in Repo, with the server's keys.
type SMSSecrets struct {
	Repo tenants.SMSRepo
	Keys func() *sealed.Keys
}

// Secret returns the tenant's secret of provider in plaintext; tenants.ErrNotFound when none
// is set, sealed.ErrUnreadable when the server's keys cannot open it.
func (s SMSSecrets) Secret(ctx context.Context, tenantID, provider string) (string, error) {
	sec, err := s.Repo.Secret(ctx, tenantID, provider)
	if err != nil {
		return "", err
	}
	return s.Keys().Open(sec.Sealed, tenants.SMSSecretOwner(tenantID, provider))
}
