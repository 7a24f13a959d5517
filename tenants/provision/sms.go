package provision

import (
	"context"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// maxSMSSecret bounds a pasted secret (Twilio's auth token is 32 characters, Telnyx's key 44,
// Vonage's signature secret up to 64).
const maxSMSSecret = 512

// SetSMSSecret stores the secret that verifies an SMS provider's webhook for the tenant
// (Twilio: the auth token; Telnyx: the account's base64 Ed25519 public key; Vonage: the
// signature secret), sealed under the server's secrets key. Nothing shows it again.
func (s *Service) SetSMSSecret(ctx context.Context, a Actor, tenantID, provider, secret string) error {
	var c checks
	secret = strings.TrimSpace(secret)
	switch {
	case !slices.Contains(unsubscribe.SMSProviders(), provider):
		c.add("provider", CodeUnknown, "Choose twilio, telnyx or vonage.")
	case secret == "":
		c.add("secret", CodeRequired, "Paste the provider's secret.")
	case len(secret) > maxSMSSecret:
		c.add("secret", CodeTooLong, "A provider secret is at most 512 characters.")
	case provider == "telnyx":
		if _, err := unsubscribe.ParseTelnyxKey(secret); err != nil {
			c.add("secret", CodeInvalid, "Telnyx's public key is 32 bytes in base64, as its portal shows it.")
		}
	}
	if _, err := s.checkedTenant(ctx, &c, tenantID); err != nil {
		return err
	}
	sealedValue, err := s.SecretsKeys().Seal(secret, tenants.SMSSecretOwner(tenantID, provider))
	if err != nil {
		return err
	}
	if err := s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: tenantID, Provider: provider, Sealed: sealedValue, SetAt: s.now()}); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionWebhookChanged, provider+" sms secret set")
}

// AddSMSNumber registers a number the tenant sends its SMS from: once it has one, an inbound
// message applies to it only when sent to one of its numbers. The number is read in
// international form (or national in the tenant's default country) and returned in E.164,
// with whether it was new. The audit entry counts numbers; it never holds one.
func (s *Service) AddSMSNumber(ctx context.Context, a Actor, tenantID, number string) (string, bool, error) {
	var c checks
	t, err := s.checkedTenant(ctx, &c, tenantID)
	if err != nil {
		return "", false, err
	}
	e164, ok := contact.NormalisePhone(number, t.DefaultCountry)
	if !ok {
		c.add("number", CodeInvalid, "Give the number in international form, such as +4915112345678.")
		return "", false, c.err()
	}
	added, err := s.SMS.AddNumber(ctx, tenants.SMSNumber{TenantID: tenantID, Number: e164, AddedAt: s.now()})
	if err != nil || !added {
		return e164, false, err
	}
	return e164, true, s.audit(ctx, a, tenantID, tenants.ActionSMSNumberAdded, "sms sending number added")
}

// RemoveSMSNumber removes one of the tenant's sending numbers (E.164); tenants.ErrNotFound
// when it has no such number.
func (s *Service) RemoveSMSNumber(ctx context.Context, a Actor, tenantID, number string) error {
	if err := s.SMS.RemoveNumber(ctx, tenantID, number); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionSMSNumberRemoved, "sms sending number removed")
}

// SetSMSStopWords replaces the tenant's own SMS opt-out words (none clears them), each folded
// as the keyword rule compares texts, without repeats, and returns the tenant as changed.
func (s *Service) SetSMSStopWords(ctx context.Context, a Actor, tenantID string, words []string) (tenants.Tenant, error) {
	var c checks
	var folded []string
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			continue
		}
		f, ok := unsubscribe.CheckAddedWord(w)
		if !ok {
			c.add("sms_stop_words", CodeInvalid, "Each stop word is 1 to 40 characters, and START and UNSTOP cannot be one.")
			break
		}
		if !slices.Contains(folded, f) {
			folded = append(folded, f)
		}
	}
	if len(folded) > unsubscribe.MaxAddedWords {
		c.add("sms_stop_words", CodeTooLong, "At most 50 stop words.")
	}
	t, err := s.checkedTenant(ctx, &c, tenantID)
	if err != nil {
		return tenants.Tenant{}, err
	}
	if err := s.Tenants.SetSMSStopWords(ctx, tenantID, folded); err != nil {
		return tenants.Tenant{}, err
	}
	t.SMSStopWords = folded
	return t, s.audit(ctx, a, tenantID, tenants.ActionSMSStopWords, "sms stop words set")
}
