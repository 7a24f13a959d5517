package sqlite

import (
	"cmp"
	"context"
	"database/sql"

	"github.com/consentforms/consentforms/tenants"
)

// Staff is the staff users table.
type Staff struct{ s *Store }

var _ tenants.StaffRepo = (*Staff)(nil)

const staffCols = `id, email, password_hash, role, tenant_id, created_at, disabled, must_change_password, created_by`

// Insert stores a new user; ErrConflict when the e-mail is taken.
func (r *Staff) Insert(ctx context.Context, st tenants.Staff) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO staff (`+staffCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, staffArgs(st)...)
	return translate("insert staff", err)
}

// staffArgs are the values of staffCols for st.
func staffArgs(st tenants.Staff) []any {
	return []any{st.ID, tenants.StaffEmailKey(st.Email), st.PasswordHash, st.Role, st.TenantID, ms(st.CreatedAt), st.Disabled, st.MustChangePassword, st.CreatedBy}
}

// ByEmail returns the user signing in with email, of any tenant.
func (r *Staff) ByEmail(ctx context.Context, email string) (tenants.Staff, error) {
	st, err := scanStaff(r.s.r.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE email = ?`, tenants.StaffEmailKey(email)))
	return st, translate("staff by email", err)
}

// Lookup returns the user with id (session restore; the session carries no tenant to check).
func (r *Staff) Lookup(ctx context.Context, id string) (tenants.Staff, error) {
	st, err := scanStaff(r.s.r.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE id = ?`, id))
	return st, translate("get staff", err)
}

// List returns the tenant's users, newest first.
func (r *Staff) List(ctx context.Context, tenantID string) ([]tenants.Staff, error) {
	return queryAll(ctx, r.s.r, "list staff", scanStaff,
		`SELECT `+staffCols+` FROM staff WHERE tenant_id = ? ORDER BY created_at DESC, id`, tenantID)
}

// ListAll returns every user, newest first (platform admin).
func (r *Staff) ListAll(ctx context.Context) ([]tenants.Staff, error) {
	return queryAll(ctx, r.s.r, "list staff", scanStaff, `SELECT `+staffCols+` FROM staff ORDER BY created_at DESC, id`)
}

// Count returns how many staff users exist (first start creates the platform admin).
func (r *Staff) Count(ctx context.Context) (int64, error) {
	var n int64
	err := r.s.r.QueryRowContext(ctx, `SELECT count(*) FROM staff`).Scan(&n)
	return n, translate("count staff", err)
}

// SetDisabled disables or re-enables the user.
func (r *Staff) SetDisabled(ctx context.Context, id string, disabled bool) error {
	return r.update(ctx, "disable staff", `UPDATE staff SET disabled = ? WHERE id = ?`, disabled, id)
}

// SetPassword replaces the user's password hash.
func (r *Staff) SetPassword(ctx context.Context, id, hash string, mustChange bool) error {
	return r.update(ctx, "set staff password", `UPDATE staff SET password_hash = ?, must_change_password = ? WHERE id = ?`, hash, mustChange, id)
}

func (r *Staff) update(ctx context.Context, op, query string, args ...any) error {
	res, err := r.s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return translate(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return translate(op, cmp.Or(err, sql.ErrNoRows))
	}
	return nil
}

func scanStaff(row scanner) (tenants.Staff, error) {
	var st tenants.Staff
	var created int64
	err := row.Scan(&st.ID, &st.Email, &st.PasswordHash, &st.Role, &st.TenantID, &created, &st.Disabled, &st.MustChangePassword, &st.CreatedBy)
	st.CreatedAt = fromMS(created)
	return st, err
}
