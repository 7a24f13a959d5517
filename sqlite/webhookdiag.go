package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// WebhookDiag keeps the inbound webhook diagnostics: one row per tenant and provider, one
// per tenant, provider and day.
type WebhookDiag struct{ s *Store }

var _ tenants.WebhookDiagRepo = (*WebhookDiag)(nil)

// Add merges deltas in one transaction.
func (r *WebhookDiag) Add(ctx context.Context, deltas []tenants.WebhookDelta, keepFrom string) error {
	if len(deltas) == 0 {
		return nil
	}
	return r.s.Writer.inTx(ctx, func(tx *sql.Tx, _ statements) error {
		for _, d := range deltas {
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_diag (tenant_id, provider) VALUES (?, ?) ON CONFLICT DO NOTHING`,
				d.TenantID, d.Provider); err != nil {
				return translate("webhook diagnostics", err)
			}
			if !d.LastDelivery.IsZero() {
				if _, err := tx.ExecContext(ctx, `UPDATE webhook_diag SET last_delivery_at = ?, last_events = ?, last_unsubscribed = ?
					WHERE tenant_id = ? AND provider = ? AND last_delivery_at < ?`,
					ms(d.LastDelivery), d.LastEvents, d.LastUnsubscribed, d.TenantID, d.Provider, ms(d.LastDelivery)); err != nil {
					return translate("webhook diagnostics", err)
				}
			}
			if !d.LastRefusal.IsZero() {
				if _, err := tx.ExecContext(ctx, `UPDATE webhook_diag SET last_refusal_at = ?, last_reason = ?
					WHERE tenant_id = ? AND provider = ? AND last_refusal_at < ?`,
					ms(d.LastRefusal), d.LastReason, d.TenantID, d.Provider, ms(d.LastRefusal)); err != nil {
					return translate("webhook diagnostics", err)
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_days (tenant_id, provider, day, accepted, refused) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT DO UPDATE SET accepted = accepted + excluded.accepted, refused = refused + excluded.refused`,
				d.TenantID, d.Provider, d.Day, d.Accepted, d.Refused); err != nil {
				return translate("webhook diagnostics", err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_days WHERE tenant_id = ? AND provider = ? AND day < ?`,
				d.TenantID, d.Provider, keepFrom); err != nil {
				return translate("webhook diagnostics", err)
			}
		}
		return nil
	})
}

// Stats returns the tenant's diagnostics per provider.
func (r *WebhookDiag) Stats(ctx context.Context, tenantID, from string) ([]tenants.WebhookStats, error) {
	rows, err := r.s.r.QueryContext(ctx, `SELECT provider, last_delivery_at, last_events, last_unsubscribed, last_refusal_at, last_reason
		FROM webhook_diag WHERE tenant_id = ? ORDER BY provider`, tenantID)
	if err != nil {
		return nil, translate("webhook diagnostics", err)
	}
	var out []tenants.WebhookStats
	for rows.Next() {
		st := tenants.WebhookStats{TenantID: tenantID}
		var delivered, refused int64
		if err := rows.Scan(&st.Provider, &delivered, &st.LastEvents, &st.LastUnsubscribed, &refused, &st.LastReason); err != nil {
			rows.Close()
			return nil, translate("webhook diagnostics", err)
		}
		st.LastDelivery, st.LastRefusal = msOrZero(delivered), msOrZero(refused)
		out = append(out, st)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, translate("webhook diagnostics", err)
	}
	for i := range out {
		if err := r.days(ctx, &out[i], from); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *WebhookDiag) days(ctx context.Context, st *tenants.WebhookStats, from string) error {
	rows, err := r.s.r.QueryContext(ctx, `SELECT day, accepted, refused FROM webhook_days
		WHERE tenant_id = ? AND provider = ? AND day >= ? ORDER BY day DESC`, st.TenantID, st.Provider, from)
	if err != nil {
		return translate("webhook diagnostics", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d tenants.WebhookDay
		if err := rows.Scan(&d.Day, &d.Accepted, &d.Refused); err != nil {
			return translate("webhook diagnostics", err)
		}
		st.Days = append(st.Days, d)
	}
	return translate("webhook diagnostics", rows.Err())
}

// msOrZero reads a stored time where 0 means none.
func msOrZero(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return fromMS(v)
}
