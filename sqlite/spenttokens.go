package sqlite

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// SpentTokens remembers the used confirmation links (table spent_tokens, migration 00014).
type SpentTokens struct{ s *Store }

var _ tenants.SpentTokenRepo = (*SpentTokens)(nil)

// Spend records the token as spent; first is false when it was already. The tenant's rows
// whose links expired before at go first, in the same transaction.
func (r *SpentTokens) Spend(ctx context.Context, tenantID, id string, at, expires time.Time) (bool, error) {
	tx, err := r.s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, translate("spend token", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, `DELETE FROM spent_tokens WHERE tenant_id = ? AND expires_at < ?`, tenantID, ms(at)); err != nil {
		return false, translate("drop expired tokens", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO spent_tokens (tenant_id, token_id, spent_at, expires_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, token_id) DO NOTHING`, tenantID, id, ms(at), ms(expires))
	if err != nil {
		return false, translate("spend token", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, translate("spend token", err)
	}
	return n == 1, translate("spend token", tx.Commit())
}

// Spent reports whether the tenant's token was spent.
func (r *SpentTokens) Spent(ctx context.Context, tenantID, id string) (bool, error) {
	var n int
	err := r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM spent_tokens WHERE tenant_id = ? AND token_id = ?`, tenantID, id).Scan(&n)
	return n > 0, translate("spent token", err)
}
