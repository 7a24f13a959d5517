package provision

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// Limits of the names provisioning stores, in characters.
const (
	MaxTenantName = 200
	MaxFormName   = 200
	MaxKeyName    = 100
	MaxTokenName  = 100
	MaxFieldName  = 128
	// MaxRateLimit bounds a tenant's requests per second per API key.
	MaxRateLimit = 1_000_000
)

// TenantInput is a new tenant. RateLimit 0 is refused; callers pass tenants.DefaultRateLimit
// when none was given.
type TenantInput struct {
	Name          string
	RateLimit     int
	Retention     string // "" keeps records
	RetentionFrom string // "" counts from creation
}

// CreateTenant creates an active tenant with a "t_" id.
func (s *Service) CreateTenant(ctx context.Context, a Actor, in TenantInput) (tenants.Tenant, error) {
	var c checks
	name := strings.TrimSpace(in.Name)
	c.name("name", name, MaxTenantName, true, "Give a name of at most 200 characters.")
	if in.RateLimit < 1 || in.RateLimit > MaxRateLimit {
		c.add("rate_limit", CodeOutOfRange, "Give a whole number from 1 to 1000000.")
	}
	retention, from := c.retention(in.Retention, in.RetentionFrom)
	if err := c.err(); err != nil {
		return tenants.Tenant{}, err
	}
	t := tenants.Tenant{ID: tenants.NewID("t_"), Name: name, Status: tenants.TenantActive, RateLimit: in.RateLimit,
		CreatedAt: s.now(), Retention: retention, RetentionFrom: from}
	if err := s.Tenants.Insert(ctx, t); err != nil {
		return tenants.Tenant{}, err
	}
	return t, s.audit(ctx, a, t.ID, tenants.ActionTenantCreated, "", t.ID)
}

// retention checks a retention setting (the inputs "retention" and "retention_from") and
// returns what to store: nothing, or the interval and its basis.
func (c *checks) retention(retention, from string) (string, string) {
	if from != "" && !slices.Contains(tenants.RetentionFroms(), from) {
		c.add("retention_from", CodeUnknown, "Choose what the retention counts from.")
	}
	if _, _, err := consent.ParseRetention(retention, ""); err != nil {
		c.add("retention", CodeInvalid, "Give an interval such as 90d, 2y or P2Y, or leave it empty.")
	}
	if retention == "" {
		return "", ""
	}
	return retention, tenants.RetentionBasis(from)
}

// CheckRetention validates a retention setting on its own (a tenant's default retention).
func CheckRetention(retention, from string) tenants.Violations {
	var c checks
	c.retention(retention, from)
	return c.vs
}

// SetTenantStatus suspends (tenants.TenantSuspended) or activates (tenants.TenantActive) a
// tenant. Suspension ends every session of the tenant's staff, on every instance: they sign
// in again once it is active, and no session from before comes back with it.
func (s *Service) SetTenantStatus(ctx context.Context, a Actor, tenantID, status string) error {
	var c checks
	if err := c.tenant(ctx, s, tenantID); err != nil {
		return err
	}
	if status != tenants.TenantActive && status != tenants.TenantSuspended {
		c.add("status", CodeUnknown, "Choose active or suspended.")
	}
	if err := c.err(); err != nil {
		return err
	}
	if err := s.Tenants.SetStatus(ctx, tenantID, status); err != nil {
		return err
	}
	if status == tenants.TenantSuspended {
		staff, err := s.Staff.List(ctx, tenantID)
		if err != nil {
			return err
		}
		for _, st := range staff {
			if err := s.Sessions.DeleteStaff(ctx, st.ID, ""); err != nil {
				return err
			}
		}
	}
	return s.audit(ctx, a, tenantID, tenants.ActionTenantChanged, "", tenantID)
}

// SetSendGridKey stores the verification key of the tenant's SendGrid signed event webhook,
// pasted as base64 DER or PEM, normalised to base64 DER.
func (s *Service) SetSendGridKey(ctx context.Context, a Actor, tenantID, pasted string) error {
	var c checks
	if err := c.tenant(ctx, s, tenantID); err != nil {
		return err
	}
	key, err := unsubscribe.ParsePublicKey(strings.TrimSpace(pasted))
	if err != nil {
		c.add("public_key", CodeInvalid, "This is not an ECDSA P-256 public key (base64 or PEM).")
	}
	if err := c.err(); err != nil {
		return err
	}
	if err := s.Tenants.SetSendGridKey(ctx, tenantID, key); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionWebhookChanged, "sendgrid key saved")
}

// ClearSendGridKey removes the tenant's SendGrid verification key: signed calls are refused.
func (s *Service) ClearSendGridKey(ctx context.Context, a Actor, tenantID string) error {
	if err := s.Tenants.SetSendGridKey(ctx, tenantID, ""); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionWebhookChanged, "sendgrid key cleared")
}

// SetDefaultCountry sets the tenant's default country (ISO 3166 alpha-2, any case; "" clears
// it), in which the national phone numbers of its section-6 records and of its people's lookups
// are read, and returns the tenant as changed.
func (s *Service) SetDefaultCountry(ctx context.Context, a Actor, tenantID, country string) (tenants.Tenant, error) {
	var c checks
	country = strings.ToUpper(strings.TrimSpace(country))
	if country != "" && !contact.ValidCountry(country) {
		c.add("default_country", CodeInvalid, "Give a two-letter ISO 3166 country code, such as DE, or nothing.")
	}
	t, err := s.checkedTenant(ctx, &c, tenantID)
	if err != nil {
		return tenants.Tenant{}, err
	}
	if err := s.Tenants.SetDefaultCountry(ctx, tenantID, country); err != nil {
		return tenants.Tenant{}, err
	}
	t.DefaultCountry = country
	return t, s.audit(ctx, a, tenantID, tenants.ActionTenantChanged, "default country", tenantID)
}

// checkedTenant reads the tenant a setting is for: an unknown one is a violation of c (as
// "tenant"), and c's violations are the error.
func (s *Service) checkedTenant(ctx context.Context, c *checks, tenantID string) (tenants.Tenant, error) {
	t, err := s.Tenants.Get(ctx, tenantID)
	if errors.Is(err, tenants.ErrNotFound) {
		c.add("tenant", CodeUnknown, "Choose a tenant.")
	} else if err != nil {
		return tenants.Tenant{}, err
	}
	return t, c.err()
}

// SetTenantRetention sets the tenant's default retention, for its records of no form
// (retention "" clears it), and returns the tenant as changed.
func (s *Service) SetTenantRetention(ctx context.Context, a Actor, tenantID, retention, from string) (tenants.Tenant, error) {
	var c checks
	retention, from = c.retention(retention, from)
	t, err := s.checkedTenant(ctx, &c, tenantID)
	if err != nil {
		return tenants.Tenant{}, err
	}
	if err := s.Tenants.SetRetention(ctx, tenantID, retention, from); err != nil {
		return tenants.Tenant{}, err
	}
	t.Retention, t.RetentionFrom = retention, from
	return t, s.audit(ctx, a, tenantID, tenants.ActionTenantChanged, "retention", tenantID)
}

// IdentityChange changes the organisation's identity; a nil field keeps its value, "" clears
// it.
type IdentityChange struct {
	LegalName, ContactEmail, Address, PrivacyURL, Jurisdiction *string
}

// SetIdentity checks and stores the organisation's identity (docs/API.md §17: the person's
// pages and the receipts name it) and returns the tenant as changed. The privacy notice is an
// absolute https URL; the jurisdiction an ISO 3166 alpha-2 code.
func (s *Service) SetIdentity(ctx context.Context, a Actor, tenantID string, in IdentityChange) (tenants.Tenant, error) {
	var c checks
	t, err := s.Tenants.Get(ctx, tenantID)
	if errors.Is(err, tenants.ErrNotFound) {
		c.add("tenant", CodeUnknown, "Choose a tenant.")
		return tenants.Tenant{}, c.err()
	} else if err != nil {
		return tenants.Tenant{}, err
	}
	id := t.Identity
	text := func(field string, v *string, max int, into *string) {
		if v == nil {
			return
		}
		*into = strings.TrimSpace(*v)
		if len(*into) > max || strings.ContainsAny(*into, "\x00\r\n") && field != "address" {
			c.add(field, CodeInvalid, fmt.Sprintf("Give at most %d characters on one line.", max))
		}
	}
	text("legal_name", in.LegalName, 200, &id.LegalName)
	text("address", in.Address, 300, &id.Address)
	text("contact_email", in.ContactEmail, 254, &id.ContactEmail)
	if in.ContactEmail != nil && id.ContactEmail != "" {
		if e, ok := contact.NormaliseEmail(id.ContactEmail); ok {
			id.ContactEmail = e
		} else {
			c.add("contact_email", CodeInvalid, "Give an e-mail address, such as privacy@example.org, or nothing.")
		}
	}
	text("privacy_url", in.PrivacyURL, 500, &id.PrivacyURL)
	if in.PrivacyURL != nil && id.PrivacyURL != "" {
		if u, err := url.Parse(id.PrivacyURL); err != nil || u.Scheme != "https" || u.Host == "" {
			c.add("privacy_url", CodeInvalid, "Give the privacy notice's address, starting with https://, or nothing.")
		}
	}
	if in.Jurisdiction != nil {
		id.Jurisdiction = strings.ToUpper(strings.TrimSpace(*in.Jurisdiction))
		if id.Jurisdiction != "" && !contact.ValidCountry(id.Jurisdiction) {
			c.add("jurisdiction", CodeInvalid, "Give a two-letter ISO 3166 country code, such as DE, or nothing.")
		}
	}
	if err := c.err(); err != nil {
		return tenants.Tenant{}, err
	}
	if err := s.Tenants.SetIdentity(ctx, tenantID, id); err != nil {
		return tenants.Tenant{}, err
	}
	t.Identity = id
	return t, s.audit(ctx, a, tenantID, tenants.ActionTenantChanged, "identity", tenantID)
}
