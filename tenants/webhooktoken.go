package tenants

import "time"

// WebhookToken authenticates Mailchimp's webhook, which can send no credentials but the URL:
// ?token=<plaintext> on the Mailchimp unsubscribe path only. Only a hash is stored.
type WebhookToken struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	Provider string `json:"provider"`
	// Name says what the token is for (optional), as its issuer gave it.
	Name      string     `json:"name,omitempty"`
	Hash      string     `json:"hash"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt"`
	// LastUsedAt is when a webhook call last presented the token, written at most once a
	// minute per token and instance.
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
}

const tokenPrefix = "mct_"

// NewWebhookToken creates a token for provider and returns it with its plaintext.
func NewWebhookToken(tenantID, provider string, now time.Time) (WebhookToken, string, error) {
	id, secret, plain, err := newCredential(tokenPrefix)
	if err != nil {
		return WebhookToken{}, "", err
	}
	return WebhookToken{ID: id, TenantID: tenantID, Provider: provider, Hash: hashSecret(secret), CreatedAt: now}, plain, nil
}

// ParseWebhookToken splits a plaintext token into id and secret.
func ParseWebhookToken(plain string) (id, secret string, ok bool) {
	return parseCredential(tokenPrefix, plain)
}

// Verify reports, in constant time, whether secret is the token's and it is not revoked.
func (t WebhookToken) Verify(secret string) bool {
	return APIKey{Hash: t.Hash}.Verify(secret) && t.RevokedAt == nil
}
