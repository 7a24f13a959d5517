package provision

import (
	"context"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
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
