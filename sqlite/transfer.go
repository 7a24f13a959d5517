package sqlite

import (
	"context"
	"database/sql"

	"github.com/consentforms/consentforms/tenants"
)

// Transfer exports and imports the whole database.
type Transfer struct{ s *Store }

var _ tenants.Transfer = (*Transfer)(nil)

// Export calls fn with every row: tenants, staff, keys, forms, tokens, records, audit. It
// reads in one transaction, so the export is one consistent snapshot even while the server
// writes.
func (t *Transfer) Export(ctx context.Context, fn func(tenants.Item) error) error {
	tx, err := t.s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return translate("export", err)
	}
	defer func() { _ = tx.Rollback() }()
	steps := []func() error{
		func() error {
			return each(ctx, tx, scanTenant, `SELECT `+tenantCols+` FROM tenants ORDER BY created_at, id`,
				func(v tenants.Tenant) error { return fn(tenants.Item{Tenant: &v}) })
		},
		func() error {
			return each(ctx, tx, scanStaff, `SELECT `+staffCols+` FROM staff ORDER BY created_at, id`,
				func(v tenants.Staff) error { return fn(tenants.Item{Staff: &v}) })
		},
		func() error {
			return each(ctx, tx, scanKey, `SELECT `+keyCols+` FROM api_keys ORDER BY created_at, id`,
				func(v tenants.APIKey) error { return fn(tenants.Item{APIKey: &v}) })
		},
		func() error {
			return each(ctx, tx, scanForm, `SELECT `+formCols+` FROM forms ORDER BY tenant_id, form_id`,
				func(v tenants.Form) error { return fn(tenants.Item{Form: &v}) })
		},
		func() error {
			return each(ctx, tx, scanText, `SELECT `+textCols+` FROM consent_texts ORDER BY published_at, id`,
				func(v tenants.ConsentText) error { return fn(tenants.Item{Text: &v}) })
		},
		func() error {
			return each(ctx, tx, scanToken, `SELECT `+tokenCols+` FROM webhook_tokens ORDER BY created_at, id`,
				func(v tenants.WebhookToken) error { return fn(tenants.Item{Token: &v}) })
		},
		func() error {
			return each(ctx, tx, scanRecord, `SELECT `+recordCols+` FROM records ORDER BY rid`,
				func(v recordRow) error { return fn(tenants.Item{Record: &v.rec}) })
		},
		func() error {
			return each(ctx, tx, scanAudit, `SELECT `+auditCols+` FROM audit ORDER BY seq`,
				func(v tenants.AuditEntry) error { return fn(tenants.Item{Audit: &v}) })
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// each streams the rows of q to fn.
func each[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, fn func(T) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return translate("export", err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return translate("export", err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return translate("export", rows.Err())
}

// Import stores items in one transaction, skipping those whose id exists.
func (t *Transfer) Import(ctx context.Context, items []tenants.Item) (int, error) {
	added := 0
	err := t.s.Writer.inTx(ctx, func(tx *sql.Tx, st statements) error {
		for _, it := range items {
			n, err := importItem(ctx, tx, st, it)
			if err != nil {
				return err
			}
			added += n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

func importItem(ctx context.Context, tx *sql.Tx, st statements, it tenants.Item) (int, error) {
	var res sql.Result
	var err error
	switch {
	case it.Tenant != nil:
		v := it.Tenant
		res, err = tx.ExecContext(ctx, `INSERT INTO tenants (`+tenantCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, tenantArgs(*v)...)
	case it.Staff != nil:
		v := it.Staff
		res, err = tx.ExecContext(ctx, `INSERT INTO staff (`+staffCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, staffArgs(*v)...)
	case it.APIKey != nil:
		args, _ := keyArgs(*it.APIKey)
		res, err = tx.ExecContext(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, args...)
	case it.Form != nil:
		args, _ := formArgs(*it.Form)
		res, err = tx.ExecContext(ctx, `INSERT INTO forms (`+formCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, args...)
	case it.Text != nil:
		v := it.Text
		res, err = tx.ExecContext(ctx, `INSERT INTO consent_texts (`+textCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			v.ID, v.TenantID, v.FormID, string(v.Consent), v.Language, v.Text, v.Hash, ms(v.PublishedAt))
	case it.Token != nil:
		v := it.Token
		res, err = tx.ExecContext(ctx, `INSERT INTO webhook_tokens (`+tokenCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			tokenArgs(*v)...)
	case it.Record != nil:
		d, err := derive(*it.Record)
		if err != nil {
			return 0, err
		}
		j := &ingestJob{in: tenants.Ingestion{Record: *it.Record}, d: d}
		if err := insertIngestion(ctx, st, j); err != nil || !j.stored {
			return 0, err
		}
		return 1, nil
	case it.Audit != nil:
		args, err := auditArgs(*it.Audit)
		if err != nil {
			return 0, err
		}
		// As exported: an entry keeps its place in its chain, and one whose id or place is
		// taken is skipped. Appends after the import continue each chain from its last entry.
		res, err = tx.ExecContext(ctx, `INSERT INTO audit (`+auditCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, args...)
		if err != nil {
			return 0, translate("import", err)
		}
	default:
		return 0, nil
	}
	if err != nil {
		return 0, translate("import", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Empty reports whether the store holds no tenant, staff user or record.
func (t *Transfer) Empty(ctx context.Context) (bool, error) {
	var n int
	err := t.s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM tenants LIMIT 1))
		+ (SELECT count(*) FROM (SELECT 1 FROM staff LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM records LIMIT 1))`).Scan(&n)
	return n == 0, translate("empty", err)
}
