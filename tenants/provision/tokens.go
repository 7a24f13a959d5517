package provision

import (
	"context"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// The providers with webhook credentials: Mailchimp's URL token, and SendGrid's OAuth client
// (the credential's id is the client id, its plaintext the client secret).
const (
	ProviderMailchimp = "mailchimp"
	ProviderSendGrid  = "sendgrid"
)

// TokenInput is a webhook token to issue.
type TokenInput struct {
	TenantID string
	Provider string
	Name     string // optional: what the token is for, shown in lists
}

// IssueToken issues a webhook token and returns it with its plaintext, shown once; only its
// hash is stored.
func (s *Service) IssueToken(ctx context.Context, a Actor, in TokenInput) (tenants.WebhookToken, string, error) {
	var c checks
	if err := c.tenant(ctx, s, in.TenantID); err != nil {
		return tenants.WebhookToken{}, "", err
	}
	if in.Provider != ProviderMailchimp && in.Provider != ProviderSendGrid {
		c.add("provider", CodeUnknown, "Choose mailchimp (a URL token) or sendgrid (an OAuth client).")
	}
	name := strings.TrimSpace(in.Name)
	c.name("name", name, MaxTokenName, false, "Use at most 100 characters.")
	if err := c.err(); err != nil {
		return tenants.WebhookToken{}, "", err
	}
	t, plain, err := tenants.NewWebhookToken(in.TenantID, in.Provider, s.now())
	if err != nil {
		return tenants.WebhookToken{}, "", err
	}
	t.Name = name
	if err := s.Tokens.Insert(ctx, t); err != nil {
		return tenants.WebhookToken{}, "", err
	}
	return t, plain, s.audit(ctx, a, in.TenantID, tenants.ActionWebhookChanged, in.Provider+" token issued", t.ID)
}

// RevokeToken revokes the tenant's webhook token; tenants.ErrNotFound when it has no such
// token.
func (s *Service) RevokeToken(ctx context.Context, a Actor, tenantID, id string) error {
	if err := s.Tokens.Revoke(ctx, tenantID, id, s.now()); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionWebhookChanged, ProviderMailchimp+" token revoked", id)
}
