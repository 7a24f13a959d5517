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

// SMSNumber is a number a tenant sends its SMS from (E.164). Once a tenant has registered
// one, an inbound message applies to it only when sent to one of its numbers.
type SMSNumber struct {
	TenantID, Number string
	AddedAt          time.Time
}

// SMSRepo keeps the tenants' SMS provider secrets, their sending numbers and the inbound
// messages already applied.
type SMSRepo interface {
	// SetSecret stores or replaces the tenant's secret of s.Provider.
	SetSecret(ctx context.Context, s SMSSecret) error
	// Secret returns the tenant's secret of provider; ErrNotFound when none is set.
	Secret(ctx context.Context, tenantID, provider string) (SMSSecret, error)
	// Secrets returns the tenant's secrets, by provider.
	Secrets(ctx context.Context, tenantID string) ([]SMSSecret, error)
	// AllSecrets returns every tenant's secrets (spans tenants: the secrets key's rotation).
	AllSecrets(ctx context.Context) ([]SMSSecret, error)
	// MessageSeen reports whether the provider's message id was applied, for this tenant or
	// any other: a message is applied once, whichever tenant's URL it was posted to.
	MessageSeen(ctx context.Context, tenantID, provider, messageID string) (bool, error)
	// RememberMessage records a message id as applied for the tenant; remembering it again
	// changes nothing.
	RememberMessage(ctx context.Context, tenantID, provider, messageID string, at time.Time) error
	// AddNumber registers a sending number of the tenant; added is false when it was already.
	AddNumber(ctx context.Context, n SMSNumber) (added bool, err error)
	// RemoveNumber removes one; ErrNotFound when the tenant has no such number.
	RemoveNumber(ctx context.Context, tenantID, number string) error
	// Numbers returns the tenant's sending numbers, in the order they were added.
	Numbers(ctx context.Context, tenantID string) ([]SMSNumber, error)
}

// Audit actions of the SMS settings and of inbound SMS (docs/API.md §11).
const (
	ActionSMSNumberAdded   = "sms.number_added"
	ActionSMSNumberRemoved = "sms.number_removed"
	ActionSMSStopWords     = "sms.stop_words_changed"
	// ActionSMSOptInKeyword: a person texted START or UNSTOP. Nothing is granted; the entry
	// names the provider as actor and the sender by keyed hash only.
	ActionSMSOptInKeyword = "sms.opt_in_keyword"
)

// SMSSecretOwner is what a sealed SMS secret is bound to: its tenant and provider.
func SMSSecretOwner(tenantID, provider string) string { return tenantID + "/" + provider }
