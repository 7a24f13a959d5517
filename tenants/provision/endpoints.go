package provision

import (
	"context"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// EndpointInput is an outgoing webhook endpoint to register.
type EndpointInput struct {
	TenantID string
	URL      string
	Events   string // comma-separated event types, or "all"
}

// CreateEndpoint registers an endpoint with a new signing secret, which is shown once. The
// URL must pass the service's policy (docs/WEBHOOKS.md); a tenant has at most
// webhook.MaxEndpoints.
func (s *Service) CreateEndpoint(ctx context.Context, a Actor, in EndpointInput) (tenants.Endpoint, error) {
	var c checks
	if err := c.tenant(ctx, s, in.TenantID); err != nil {
		return tenants.Endpoint{}, err
	}
	if err := c.err(); err != nil {
		return tenants.Endpoint{}, err
	}
	events, err := webhook.ParseEvents(in.Events)
	if err != nil {
		c.add("event", CodeRequired, "Choose at least one event.")
	}
	existing, err := s.Endpoints.Endpoints(ctx, in.TenantID)
	if err != nil {
		return tenants.Endpoint{}, err
	}
	e, err := webhook.NewEndpoint(s.WebhookPolicy, in.TenantID, in.URL, events, len(existing), s.now())
	if err != nil {
		c.add("url", CodeInvalid, strings.ToUpper(err.Error()[:1])+err.Error()[1:]+".")
	}
	if err := c.err(); err != nil {
		return tenants.Endpoint{}, err
	}
	if err := s.Endpoints.InsertEndpoint(ctx, e); err != nil {
		return tenants.Endpoint{}, err
	}
	return e, s.audit(ctx, a, in.TenantID, tenants.ActionWebhookChanged, "outgoing endpoint added", e.ID)
}

// DeleteEndpoint deletes the tenant's endpoint and its delivery log; tenants.ErrNotFound when
// it has no such endpoint.
func (s *Service) DeleteEndpoint(ctx context.Context, a Actor, tenantID, id string) error {
	if err := s.Endpoints.DeleteEndpoint(ctx, tenantID, id); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionWebhookChanged, "outgoing endpoint deleted", id)
}
