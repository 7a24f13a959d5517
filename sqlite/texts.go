package sqlite

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
)

// Texts is the consent_texts table: the published notice versions of forms, append-only.
type Texts struct{ s *Store }

var _ tenants.TextRepo = (*Texts)(nil)

const textCols = `id, tenant_id, form_id, consent, language, text, hash, published_at`

// Insert stores a new version; ErrConflict for an id that exists.
func (r *Texts) Insert(ctx context.Context, t tenants.ConsentText) error {
	_, err := r.s.w.ExecContext(ctx, `INSERT INTO consent_texts (`+textCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.TenantID, t.FormID, string(t.Consent), t.Language, t.Text, t.Hash, ms(t.PublishedAt))
	return translate("insert consent text", err)
}

// Get returns the version id of the tenant's form.
func (r *Texts) Get(ctx context.Context, tenantID, formID, id string) (tenants.ConsentText, error) {
	t, err := scanText(r.s.r.QueryRowContext(ctx, `SELECT `+textCols+` FROM consent_texts WHERE id = ? AND tenant_id = ? AND form_id = ?`,
		id, tenantID, formID))
	return t, translate("get consent text", err)
}

// List returns the versions of the tenant's form in publication order.
func (r *Texts) List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	out, err := queryAll(ctx, r.s.r, "list consent texts", scanText,
		`SELECT `+textCols+` FROM consent_texts WHERE tenant_id = ? AND form_id = ? ORDER BY published_at, id`, tenantID, formID)
	if out == nil && err == nil {
		out = []tenants.ConsentText{}
	}
	return out, err
}

func scanText(row scanner) (tenants.ConsentText, error) {
	var t tenants.ConsentText
	var published int64
	err := row.Scan(&t.ID, &t.TenantID, &t.FormID, &t.Consent, &t.Language, &t.Text, &t.Hash, &published)
	t.PublishedAt = fromMS(published)
	return t, err
}
