package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// APIKeys is the api_keys table, keyed by the key id that every plaintext key carries, so
// authentication is one primary-key read.
type APIKeys struct{ s *Store }

var _ tenants.KeyRepo = (*APIKeys)(nil)

const keyCols = `id, tenant_id, name, hash, scopes, created_at, expires_at, revoked_at, last_used_at, publishable, forms, origins`

// Insert stores a new key.
func (r *APIKeys) Insert(ctx context.Context, k tenants.APIKey) error {
	args, err := keyArgs(k)
	if err != nil {
		return err
	}
	_, err = r.s.w.ExecContext(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	return translate("insert api key", err)
}

// keyArgs are a key's values in the order of keyCols.
func keyArgs(k tenants.APIKey) ([]any, error) {
	scopes, err := json.Marshal(k.Scopes)
	return []any{k.ID, k.TenantID, k.Name, k.Hash, string(scopes), ms(k.CreatedAt), msPtr(k.ExpiresAt), msPtr(k.RevokedAt), msPtr(k.LastUsedAt),
		k.Publishable, jsonList(k.Forms), jsonList(k.Origins)}, err
}

// Lookup returns the key with id, of any tenant.
func (r *APIKeys) Lookup(ctx context.Context, id string) (tenants.APIKey, error) {
	k, err := scanKey(r.s.r.QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`, id))
	return k, translate("lookup api key", err)
}

// Get returns the tenant's key with id.
func (r *APIKeys) Get(ctx context.Context, tenantID, id string) (tenants.APIKey, error) {
	k, err := scanKey(r.s.r.QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE tenant_id = ? AND id = ?`, tenantID, id))
	return k, translate("get api key", err)
}

// List returns the tenant's keys, newest first.
func (r *APIKeys) List(ctx context.Context, tenantID string) ([]tenants.APIKey, error) {
	return queryAll(ctx, r.s.r, "list api keys", scanKey,
		`SELECT `+keyCols+` FROM api_keys WHERE tenant_id = ? ORDER BY created_at DESC, id`, tenantID)
}

// Revoke marks the tenant's key revoked at now.
func (r *APIKeys) Revoke(ctx context.Context, tenantID, id string, now time.Time) error {
	return execOne(ctx, r.s.w, "revoke api key", `UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id = ?`, ms(now), tenantID, id)
}

// Touch records the key's last use.
func (r *APIKeys) Touch(ctx context.Context, id string, now time.Time) error {
	_, err := r.s.w.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, ms(now), id)
	return translate("touch api key", err)
}

func scanKey(row scanner) (tenants.APIKey, error) {
	var k tenants.APIKey
	var scopes, forms, origins string
	var created int64
	var expires, revoked, used sql.NullInt64
	if err := row.Scan(&k.ID, &k.TenantID, &k.Name, &k.Hash, &scopes, &created, &expires, &revoked, &used, &k.Publishable, &forms, &origins); err != nil {
		return k, err
	}
	k.CreatedAt, k.ExpiresAt, k.RevokedAt, k.LastUsedAt = fromMS(created), fromNullMS(expires), fromNullMS(revoked), fromNullMS(used)
	if err := json.Unmarshal([]byte(forms), &k.Forms); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(origins), &k.Origins); err != nil {
		return k, err
	}
	return k, json.Unmarshal([]byte(scopes), &k.Scopes)
}

// jsonList is a list column's JSON; an empty list reads back as nil.
func jsonList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// OriginAllowed reports whether a usable publishable key of any tenant lists origin.
func (r *APIKeys) OriginAllowed(ctx context.Context, origin string, now time.Time) (bool, error) {
	var ok bool
	err := r.s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys k, json_each(k.origins) o
		WHERE k.publishable = 1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?) AND o.value = ?)`,
		ms(now), origin).Scan(&ok)
	return ok, translate("find publishable key origin", err)
}
