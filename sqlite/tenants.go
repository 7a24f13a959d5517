package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/consentforms/consentforms/tenants"
)

// Tenants is the tenants table.
type Tenants struct{ s *Store }

var _ tenants.TenantRepo = (*Tenants)(nil)

const tenantCols = `id, name, status, rate_limit, created_at, sendgrid_public_key, retention, retention_from, default_country, sms_stop_words, identity`

// Insert stores a new tenant.
func (r *Tenants) Insert(ctx context.Context, t tenants.Tenant) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO tenants (`+tenantCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, tenantArgs(t)...)
	return translate("insert tenant", err)
}

// Get returns the tenant with id.
func (r *Tenants) Get(ctx context.Context, id string) (tenants.Tenant, error) {
	t, err := scanTenant(cachedQuerier{cache: r.s.rq}.QueryRowContext(ctx, `SELECT `+tenantCols+` FROM tenants WHERE id = ?`, id))
	return t, translate("get tenant", err)
}

// List returns every tenant, newest first (platform admin only; tenants are few).
func (r *Tenants) List(ctx context.Context) ([]tenants.Tenant, error) {
	return queryAll(ctx, r.s.r, "list tenants", scanTenant, `SELECT `+tenantCols+` FROM tenants ORDER BY created_at DESC, id`)
}

// SetRateLimit changes the tenant's per-key rate limit.
func (r *Tenants) SetRateLimit(ctx context.Context, tenantID string, perSecond int) error {
	return r.update(ctx, `UPDATE tenants SET rate_limit = ? WHERE id = ?`, perSecond, tenantID)
}

// SetStatus suspends or reactivates the tenant.
func (r *Tenants) SetStatus(ctx context.Context, tenantID, status string) error {
	return r.update(ctx, `UPDATE tenants SET status = ? WHERE id = ?`, status, tenantID)
}

// SetSendGridKey stores (or clears, with "") the tenant's SendGrid verification key.
func (r *Tenants) SetSendGridKey(ctx context.Context, tenantID, key string) error {
	return r.update(ctx, `UPDATE tenants SET sendgrid_public_key = ? WHERE id = ?`, key, tenantID)
}

// SetRetention stores the tenant's default retention and what it counts from.
func (r *Tenants) SetRetention(ctx context.Context, tenantID, retention, from string) error {
	return r.update(ctx, `UPDATE tenants SET retention = ?, retention_from = ? WHERE id = ?`, retention, from, tenantID)
}

// SetDefaultCountry stores the tenant's default country ("" clears it).
func (r *Tenants) SetDefaultCountry(ctx context.Context, tenantID, country string) error {
	return r.update(ctx, `UPDATE tenants SET default_country = ? WHERE id = ?`, country, tenantID)
}

// SetSMSStopWords stores the tenant's own SMS opt-out words (nil clears them).
func (r *Tenants) SetSMSStopWords(ctx context.Context, tenantID string, words []string) error {
	return r.update(ctx, `UPDATE tenants SET sms_stop_words = ? WHERE id = ?`, stopWords(words), tenantID)
}

// SetIdentity stores the organisation's identity (the zero Identity clears it).
func (r *Tenants) SetIdentity(ctx context.Context, tenantID string, id tenants.Identity) error {
	return r.update(ctx, `UPDATE tenants SET identity = ? WHERE id = ?`, identityOf(id), tenantID)
}

// identityOf is the identity column: a JSON object, ” for none.
func identityOf(id tenants.Identity) string {
	if id == (tenants.Identity{}) {
		return ""
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// tenantArgs are the values of tenantCols for t.
func tenantArgs(t tenants.Tenant) []any {
	return []any{t.ID, t.Name, t.Status, t.RateLimit, ms(t.CreatedAt), t.SendGridPublicKey, t.Retention, t.RetentionFrom, t.DefaultCountry, stopWords(t.SMSStopWords), identityOf(t.Identity)}
}

// stopWords is the column value of a tenant's SMS stop words: a JSON array, ” for none.
func stopWords(words []string) string {
	if len(words) == 0 {
		return ""
	}
	b, _ := json.Marshal(words)
	return string(b)
}

func (r *Tenants) update(ctx context.Context, q string, args ...any) error {
	return execOne(ctx, r.s.w, "update tenant", q, args...)
}

func scanTenant(row scanner) (tenants.Tenant, error) {
	var t tenants.Tenant
	var created int64
	var words, identity string
	err := row.Scan(&t.ID, &t.Name, &t.Status, &t.RateLimit, &created, &t.SendGridPublicKey, &t.Retention, &t.RetentionFrom, &t.DefaultCountry, &words, &identity)
	t.CreatedAt = fromMS(created)
	if err == nil && words != "" {
		if err = json.Unmarshal([]byte(words), &t.SMSStopWords); err != nil {
			err = fmt.Errorf("tenant %s sms stop words: %w", t.ID, err)
		}
	}
	if err == nil && identity != "" {
		if err = json.Unmarshal([]byte(identity), &t.Identity); err != nil {
			err = fmt.Errorf("tenant %s identity: %w", t.ID, err)
		}
	}
	return t, err
}

// scanner is a row or rows.
type scanner interface{ Scan(dest ...any) error }

// queryAll runs q and scans every row.
func queryAll[T any](ctx context.Context, db querier, op string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, translate(op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, translate(op, err)
		}
		out = append(out, v)
	}
	return out, translate(op, rows.Err())
}

// execOne runs a statement that must change one row: ErrNotFound when it changed none.
func execOne(ctx context.Context, db *sql.DB, op, q string, args ...any) error {
	res, err := db.ExecContext(ctx, q, args...)
	return changedOne(res, err, op)
}

// changedOne is execOne's answer for a statement's result.
func changedOne(res sql.Result, err error, op string) error {
	if err != nil {
		return translate(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return tenants.ErrNotFound
	}
	return nil
}
