package provision

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/consentforms/consentforms/tenants"
)

// SetMailServer stores the tenant's outgoing mail server, sealed whole under the server's
// secrets key (the password is never shown again), checked by CheckMailServer, and gives the
// tenant its mail endpoint: the outbox then delivers its confirmation and thank-you mails
// through that server. Setting it again replaces it.
func (s *Service) SetMailServer(ctx context.Context, a Actor, tenantID string, ms tenants.MailServer) error {
	var c checks
	if _, err := s.checkedTenant(ctx, &c, tenantID); err != nil {
		return err
	}
	if s.CheckMailServer != nil {
		if err := s.CheckMailServer(ms); err != nil {
			return err
		}
	}
	if s.SecretsKeys == nil {
		return errors.New("set mail server: no secrets key to seal it with")
	}
	plain, err := json.Marshal(ms)
	if err != nil {
		return err
	}
	sealedValue, err := s.SecretsKeys().Seal(string(plain), tenants.SMSSecretOwner(tenantID, tenants.ProviderMail))
	if err != nil {
		return err
	}
	if err := s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: tenantID, Provider: tenants.ProviderMail, Sealed: sealedValue, SetAt: s.now()}); err != nil {
		return err
	}
	if err := s.ensureMailEndpoint(ctx, tenantID); err != nil {
		return err
	}
	return s.audit(ctx, a, tenantID, tenants.ActionMailServerSet, "host "+ms.Host+":"+strconv.Itoa(ms.Port)+" tls "+ms.TLS)
}

// ensureMailEndpoint gives the tenant its mail endpoint unless it has one.
func (s *Service) ensureMailEndpoint(ctx context.Context, tenantID string) error {
	eps, err := s.Endpoints.Endpoints(ctx, tenantID)
	if err != nil {
		return err
	}
	for _, e := range eps {
		if e.URL == tenants.MailEndpointURL {
			return nil
		}
	}
	e, err := tenants.NewEndpoint(tenantID, tenants.MailEndpointURL, tenants.MailEvents(), "", s.now())
	if err != nil {
		return err
	}
	return s.Endpoints.InsertEndpoint(ctx, e)
}
