package sqlite

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// SMS holds the tenants' SMS provider secrets (sealed) and the inbound message ids applied.
type SMS struct{ s *Store }

var _ tenants.SMSRepo = (*SMS)(nil)

const smsSecretCols = `tenant_id, provider, sealed, set_at`

// SetSecret stores or replaces the tenant's secret of a provider.
func (r *SMS) SetSecret(ctx context.Context, s tenants.SMSSecret) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO sms_secrets (`+smsSecretCols+`) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, provider) DO UPDATE SET sealed = excluded.sealed, set_at = excluded.set_at`,
		s.TenantID, s.Provider, s.Sealed, ms(s.SetAt))
	return translate("set sms secret", err)
}

// Secret returns the tenant's secret of provider.
func (r *SMS) Secret(ctx context.Context, tenantID, provider string) (tenants.SMSSecret, error) {
	s, err := scanSMSSecret(r.s.r.QueryRowContext(ctx, `SELECT `+smsSecretCols+` FROM sms_secrets WHERE tenant_id = ? AND provider = ?`, tenantID, provider))
	return s, translate("get sms secret", err)
}

// Secrets returns the tenant's secrets by provider.
func (r *SMS) Secrets(ctx context.Context, tenantID string) ([]tenants.SMSSecret, error) {
	return queryAll(ctx, r.s.r, "list sms secrets", scanSMSSecret,
		`SELECT `+smsSecretCols+` FROM sms_secrets WHERE tenant_id = ? ORDER BY provider`, tenantID)
}

// AllSecrets returns every tenant's secrets.
func (r *SMS) AllSecrets(ctx context.Context) ([]tenants.SMSSecret, error) {
	return queryAll(ctx, r.s.r, "list sms secrets", scanSMSSecret,
		`SELECT `+smsSecretCols+` FROM sms_secrets ORDER BY tenant_id, provider`)
}

// MessageSeen reports whether the message id was applied for the tenant.
func (r *SMS) MessageSeen(ctx context.Context, tenantID, provider, messageID string) (bool, error) {
	var n int
	err := r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM sms_messages WHERE tenant_id = ? AND provider = ? AND message_id = ?`,
		tenantID, provider, messageID).Scan(&n)
	return n > 0, translate("find sms message", err)
}

// RememberMessage records the message id as applied.
func (r *SMS) RememberMessage(ctx context.Context, tenantID, provider, messageID string, at time.Time) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO sms_messages (tenant_id, provider, message_id, applied_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, tenantID, provider, messageID, ms(at))
	return translate("remember sms message", err)
}

func scanSMSSecret(row scanner) (tenants.SMSSecret, error) {
	var s tenants.SMSSecret
	var at int64
	err := row.Scan(&s.TenantID, &s.Provider, &s.Sealed, &at)
	s.SetAt = fromMS(at)
	return s, err
}
