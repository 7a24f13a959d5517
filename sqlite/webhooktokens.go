package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// WebhookTokens holds the per-tenant Mailchimp webhook tokens (hashed), keyed by token id.
type WebhookTokens struct{ s *Store }

var _ tenants.TokenRepo = (*WebhookTokens)(nil)

const tokenCols = `id, tenant_id, provider, hash, created_at, revoked_at, name, last_used_at`

// Insert stores a new token.
func (r *WebhookTokens) Insert(ctx context.Context, t tenants.WebhookToken) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO webhook_tokens (`+tokenCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		tokenArgs(t)...)
	return translate("insert webhook token", err)
}

// Lookup returns the token with id, of any tenant (the URL carries no tenant).
func (r *WebhookTokens) Lookup(ctx context.Context, id string) (tenants.WebhookToken, error) {
	t, err := scanToken(r.s.r.QueryRowContext(ctx, `SELECT `+tokenCols+` FROM webhook_tokens WHERE id = ?`, id))
	return t, translate("lookup webhook token", err)
}

// List returns the tenant's tokens, newest first.
func (r *WebhookTokens) List(ctx context.Context, tenantID string) ([]tenants.WebhookToken, error) {
	return queryAll(ctx, r.s.r, "list webhook tokens", scanToken,
		`SELECT `+tokenCols+` FROM webhook_tokens WHERE tenant_id = ? ORDER BY created_at DESC, id`, tenantID)
}

// Revoke marks the tenant's token revoked.
func (r *WebhookTokens) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	return execOne(ctx, r.s.w, "revoke webhook token", `UPDATE webhook_tokens SET revoked_at = ? WHERE tenant_id = ? AND id = ?`,
		ms(now), tenantID, id)
}

// Touch records the token's last use.
func (r *WebhookTokens) Touch(ctx context.Context, id string, now time.Time) error {
	return execOne(ctx, r.s.w, "record webhook token use", `UPDATE webhook_tokens SET last_used_at = ? WHERE id = ?`, ms(now), id)
}

// tokenArgs are the values of tokenCols.
func tokenArgs(t tenants.WebhookToken) []any {
	return []any{t.ID, t.TenantID, t.Provider, t.Hash, ms(t.CreatedAt), msPtr(t.RevokedAt), t.Name, msPtr(t.LastUsedAt)}
}

func scanToken(row scanner) (tenants.WebhookToken, error) {
	var t tenants.WebhookToken
	var created int64
	var revoked, used sql.NullInt64
	err := row.Scan(&t.ID, &t.TenantID, &t.Provider, &t.Hash, &created, &revoked, &t.Name, &used)
	t.CreatedAt, t.RevokedAt, t.LastUsedAt = fromMS(created), fromNullMS(revoked), fromNullMS(used)
	return t, err
}
