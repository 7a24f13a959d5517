package sqlite

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
)

// Sessions is the staff sessions table.
type Sessions struct{ s *Store }

var _ tenants.SessionRepo = (*Sessions)(nil)

// Insert records a session and drops the expired ones.
func (r *Sessions) Insert(ctx context.Context, se tenants.Session) error {
	tx, err := r.s.w.BeginTx(ctx, nil)
	if err != nil {
		return translate("insert session", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, ms(se.CreatedAt)); err != nil {
		return translate("drop expired sessions", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, staff_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		se.ID, se.StaffID, ms(se.CreatedAt), ms(se.ExpiresAt))
	if err != nil {
		return translate("insert session", err)
	}
	return translate("insert session", tx.Commit())
}

// Get returns the session with id.
func (r *Sessions) Get(ctx context.Context, id string) (tenants.Session, error) {
	var se tenants.Session
	var created, expires int64
	err := r.s.r.QueryRowContext(ctx, `SELECT id, staff_id, created_at, expires_at FROM sessions WHERE id = ?`, id).
		Scan(&se.ID, &se.StaffID, &created, &expires)
	se.CreatedAt, se.ExpiresAt = fromMS(created), fromMS(expires)
	return se, translate("get session", err)
}

// Delete ends one session.
func (r *Sessions) Delete(ctx context.Context, id string) error {
	_, err := r.s.w.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return translate("delete session", err)
}

// DeleteStaff ends every session of the user but keep.
func (r *Sessions) DeleteStaff(ctx context.Context, staffID, keep string) error {
	_, err := r.s.w.ExecContext(ctx, `DELETE FROM sessions WHERE staff_id = ? AND id != ?`, staffID, keep)
	return translate("delete staff sessions", err)
}
