package provision

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// publishable checks a publishable key's scopes, forms and origins (the inputs "scope",
// "forms", "origins").
func (c *checks) publishable(in KeyInput) {
	if len(in.Scopes) > 0 && !slices.Equal(slices.Compact(slices.Sorted(slices.Values(in.Scopes))), []string{tenants.ScopeSubmissionsWrite}) {
		c.add("scope", CodeNotAllowed, "A publishable key holds the scope submissions:write and no other.")
	}
	switch {
	case len(in.Forms) == 0:
		c.add("forms", CodeRequired, "Name the forms the key may submit to.")
	case len(in.Forms) > tenants.MaxKeyForms:
		c.add("forms", CodeOutOfRange, "A publishable key names at most 100 forms.")
	}
	for _, f := range in.Forms {
		if !tenants.ValidFormID(f) {
			c.add("forms", CodeInvalid, "Form ids are 1–128 characters of A–Z a–z 0–9 . _ : -.")
			break
		}
	}
	switch {
	case len(in.Origins) == 0:
		c.add("origins", CodeRequired, "Name the web origins (https://www.example.org) the key may be used from.")
	case len(in.Origins) > tenants.MaxKeyOrigins:
		c.add("origins", CodeOutOfRange, "A publishable key names at most 20 origins.")
	}
	for _, o := range in.Origins {
		if _, err := tenants.NormaliseOrigin(o); err != nil {
			c.add("origins", CodeInvalid, "An origin is scheme://host[:port], e.g. https://www.example.org, without path or wildcard.")
			break
		}
	}
}

// newKey makes the key of a checked input: a publishable one names only forms the tenant has.
func (s *Service) newKey(ctx context.Context, in KeyInput, c *checks) (tenants.APIKey, string, error) {
	name := strings.TrimSpace(in.Name)
	if !in.Publishable {
		return tenants.NewAPIKey(in.TenantID, name, in.Scopes, in.ExpiresAt, s.now())
	}
	for _, f := range in.Forms {
		_, err := s.Forms.Get(ctx, in.TenantID, f)
		if errors.Is(err, tenants.ErrNotFound) {
			c.add("forms", CodeUnknown, "The organisation has no form "+f+".")
			return tenants.APIKey{}, "", c.err()
		}
		if err != nil {
			return tenants.APIKey{}, "", err
		}
	}
	origins := make([]string, len(in.Origins))
	for i, o := range in.Origins {
		origins[i], _ = tenants.NormaliseOrigin(o)
	}
	return tenants.NewPublishableKey(in.TenantID, name, in.Forms, origins, in.ExpiresAt, s.now())
}
