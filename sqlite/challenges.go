package sqlite

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Challenges is the spent_challenges table: the spam challenges whose solutions were
// accepted, until they expire.
type Challenges struct{ s *Store }

var _ tenants.ChallengeRepo = (*Challenges)(nil)

// Spend records the challenge as spent; ErrConflict when it was. Expired rows of the tenant
// go first, in the same transaction.
func (r *Challenges) Spend(ctx context.Context, tenantID, challenge string, expiresAt, now time.Time) error {
	tx, err := r.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("spend challenge", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, `DELETE FROM spent_challenges WHERE tenant_id = ? AND expires_at < ?`, tenantID, ms(now)); err != nil {
		return translate("drop expired challenges", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO spent_challenges (tenant_id, challenge, expires_at) VALUES (?, ?, ?)`,
		tenantID, challenge, ms(expiresAt)); err != nil {
		return translate("spend challenge", err)
	}
	return translate("spend challenge", tx.Commit())
}
