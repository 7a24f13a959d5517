package tenants

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// WebhookToken authenticates Mailchimp's webhook, which can send no credentials but the URL:
// ?token=<plaintext> on the Mailchimp unsubscribe path only. Only a hash is stored.
type WebhookToken struct {
	ID        string     `bson:"_id"`
	TenantID  string     `bson:"tenantId"`
	Provider  string     `bson:"provider"`
	Hash      string     `bson:"hash"`
	CreatedAt time.Time  `bson:"createdAt"`
	RevokedAt *time.Time `bson:"revokedAt"`
}

const tokenPrefix = "mct_"

// NewWebhookToken creates a token for provider and returns it with its plaintext.
func NewWebhookToken(tenantID, provider string, now time.Time) (WebhookToken, string, error) {
	id := make([]byte, 8)
	secret := make([]byte, 20)
	if _, err := rand.Read(id); err != nil {
		return WebhookToken{}, "", fmt.Errorf("token id: %w", err)
	}
	if _, err := rand.Read(secret); err != nil {
		return WebhookToken{}, "", fmt.Errorf("token secret: %w", err)
	}
	s := lowerBase32.EncodeToString(secret)
	t := WebhookToken{ID: hex.EncodeToString(id), TenantID: tenantID, Provider: provider, Hash: hashSecret(s), CreatedAt: now}
	return t, tokenPrefix + t.ID + "_" + s, nil
}

// ParseWebhookToken splits a plaintext token into id and secret.
func ParseWebhookToken(plain string) (id, secret string, ok bool) {
	rest, found := strings.CutPrefix(plain, tokenPrefix)
	if !found {
		return "", "", false
	}
	id, secret, found = strings.Cut(rest, "_")
	return id, secret, found && len(id) == 16 && len(secret) == 32
}

// Verify reports, in constant time, whether secret is the token's and it is not revoked.
func (t WebhookToken) Verify(secret string) bool {
	return APIKey{Hash: t.Hash}.Verify(secret) && t.RevokedAt == nil
}
