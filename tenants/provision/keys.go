package provision

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// KeyInput is an API key to issue.
type KeyInput struct {
	TenantID  string
	Name      string
	Scopes    []string
	ExpiresAt *time.Time // nil: never
	// Publishable issues a key for web pages (publishable.go): Scopes must then be empty or
	// submissions:write alone, and Forms and Origins name what it may submit and from where.
	Publishable bool
	Forms       []string
	Origins     []string
}

// CheckKey validates a key's name and scopes (the inputs "name" and "scope").
func CheckKey(in KeyInput) tenants.Violations {
	var c checks
	c.key(in)
	return c.vs
}

func (c *checks) key(in KeyInput) {
	c.name("name", strings.TrimSpace(in.Name), MaxKeyName, true, "Give the key a name of at most 100 characters.")
	if in.Publishable {
		c.publishable(in)
		return
	}
	if len(in.Forms) > 0 || len(in.Origins) > 0 {
		c.add("forms", CodeNotAllowed, "Only a publishable key is bound to forms and origins.")
	}
	if len(in.Scopes) == 0 {
		c.add("scope", CodeRequired, "Choose at least one scope.")
	} else if tenants.ValidateScopes(in.Scopes) != nil {
		c.add("scope", CodeUnknown, "Choose scopes from the list.")
	}
}

// MaxActiveKeys is how many usable (unrevoked, unexpired) API keys a tenant may hold: rate
// limits are per key and per tenant, and a tenant with keys without number could still spread
// its requests over them.
const MaxActiveKeys = 100

// IssueKey issues an API key and returns it with its plaintext, which is shown once and
// never stored.
func (s *Service) IssueKey(ctx context.Context, a Actor, in KeyInput) (tenants.APIKey, string, error) {
	var c checks
	if err := c.tenant(ctx, s, in.TenantID); err != nil {
		return tenants.APIKey{}, "", err
	}
	c.key(in)
	if err := c.err(); err != nil {
		return tenants.APIKey{}, "", err
	}
	keys, err := s.APIKeys.List(ctx, in.TenantID)
	if err != nil {
		return tenants.APIKey{}, "", err
	}
	active := 0
	for _, k := range keys {
		if k.Usable(s.now()) {
			active++
		}
	}
	if active >= MaxActiveKeys {
		c.add("name", CodeOutOfRange, fmt.Sprintf("The organisation holds %d usable API keys, the most allowed: revoke one it no longer uses first.", MaxActiveKeys))
		return tenants.APIKey{}, "", c.err()
	}
	k, plain, err := s.newKey(ctx, in, &c)
	if err != nil {
		return tenants.APIKey{}, "", err
	}
	if err := s.APIKeys.Insert(ctx, k); err != nil {
		return tenants.APIKey{}, "", err
	}
	return k, plain, s.audit(ctx, a, in.TenantID, tenants.ActionAPIKeyIssued, strings.Join(k.Scopes, ","), k.ID)
}

// RevokeKey revokes the tenant's key; tenants.ErrNotFound when it has no such key.
func (s *Service) RevokeKey(ctx context.Context, a Actor, tenantID, id string) error {
	if err := s.APIKeys.Revoke(ctx, tenantID, id, s.now()); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionAPIKeyRevoked, "", id)
}
