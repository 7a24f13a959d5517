package tenants

import (
	"context"
	"time"
)

// SMSSecret is a tenant's secret for one inbound-SMS provider (Twilio's auth token, Telnyx's
// public key, Vonage's signature secret), sealed under the server's secrets key: the store
// never holds it in plaintext, and nothing shows it again once set.
type SMSSecret struct {
	TenantID, Provider string
	Sealed             string // package sealed's format, never the secret itself
	SetAt              time.Time
}

// SMSRepo keeps the tenants' SMS provider secrets and the inbound messages already applied.
type SMSRepo interface {
	// SetSecret stores or replaces the tenant's secret of s.Provider.
	SetSecret(ctx context.Context, s SMSSecret) error
	// Secret returns the tenant's secret of provider; ErrNotFound when none is set.
	Secret(ctx context.Context, tenantID, provider string) (SMSSecret, error)
	// Secrets returns the tenant's secrets, by provider.
	Secrets(ctx context.Context, tenantID string) ([]SMSSecret, error)
	// AllSecrets returns every tenant's secrets (spans tenants: the secrets key's rotation).
	AllSecrets(ctx context.Context) ([]SMSSecret, error)
	// MessageSeen reports whether the provider's message id was applied for the tenant.
	MessageSeen(ctx context.Context, tenantID, provider, messageID string) (bool, error)
	// RememberMessage records a message id as applied; remembering it again changes nothing.
	RememberMessage(ctx context.Context, tenantID, provider, messageID string, at time.Time) error
}

// SMSSecretOwner is what a sealed SMS secret is bound to: its tenant and provider.
func SMSSecretOwner(tenantID, provider string) string { return tenantID + "/" + provider }
