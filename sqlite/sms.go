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

// MessageSeen reports whether the message id was applied, for the tenant or any other (a
// message applies once, whichever tenant's URL it was posted to): the sms_messages_message
// index finds it by provider and id.
func (r *SMS) MessageSeen(ctx context.Context, tenantID, provider, messageID string) (bool, error) {
	var n int
	err := r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM sms_messages WHERE provider = ? AND message_id = ? LIMIT 1)`,
		provider, messageID).Scan(&n)
	return n > 0, translate("find sms message", err)
}

// RememberMessage records the message id as applied.
func (r *SMS) RememberMessage(ctx context.Context, tenantID, provider, messageID string, at time.Time) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO sms_messages (tenant_id, provider, message_id, applied_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, tenantID, provider, messageID, ms(at))
	return translate("remember sms message", err)
}

// AddNumber registers a sending number of the tenant; added is false when it was already.
func (r *SMS) AddNumber(ctx context.Context, n tenants.SMSNumber) (bool, error) {
	res, err := r.s.w.ExecContext(ctx, `INSERT INTO sms_numbers (tenant_id, number, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		n.TenantID, n.Number, ms(n.AddedAt))
	if err != nil {
		return false, translate("add sms number", err)
	}
	added, err := res.RowsAffected()
	return added > 0, translate("add sms number", err)
}

// RemoveNumber removes a sending number of the tenant; ErrNotFound when it has no such one.
func (r *SMS) RemoveNumber(ctx context.Context, tenantID, number string) error {
	return execOne(ctx, r.s.w, "remove sms number", `DELETE FROM sms_numbers WHERE tenant_id = ? AND number = ?`, tenantID, number)
}

// Numbers returns the tenant's sending numbers, in the order they were added.
func (r *SMS) Numbers(ctx context.Context, tenantID string) ([]tenants.SMSNumber, error) {
	return queryAll(ctx, r.s.r, "list sms numbers", func(row scanner) (tenants.SMSNumber, error) {
		var n tenants.SMSNumber
		var at int64
		err := row.Scan(&n.TenantID, &n.Number, &at)
		n.AddedAt = fromMS(at)
		return n, err
	}, `SELECT tenant_id, number, added_at FROM sms_numbers WHERE tenant_id = ? ORDER BY added_at, number`, tenantID)
}

func scanSMSSecret(row scanner) (tenants.SMSSecret, error) {
	var s tenants.SMSSecret
	var at int64
	err := row.Scan(&s.TenantID, &s.Provider, &s.Sealed, &at)
	s.SetAt = fromMS(at)
	return s, err
}
