package sqlite

import (
	"context"
	"database/sql"

	"github.com/consentforms/consentforms/tenants"
)

var _ tenants.MatchKeyRepo = (*Writer)(nil)

// SetMatchKeys replaces a record's match keys in its body and in the match key index, in one
// transaction.
func (w *Writer) SetMatchKeys(ctx context.Context, tenantID string, kind tenants.Kind, publicID string, keys []string) error {
	return w.inTx(ctx, func(tx *sql.Tx, st statements) error {
		row, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+recordCols+` FROM records WHERE tenant_id = ? AND kind = ? AND public_id = ?`,
			tenantID, string(kind), publicID))
		if err != nil {
			return translate("get record", err)
		}
		rec := row.rec
		rec.MatchKeys = keys
		return rewrite(ctx, tx, st, row, rec)
	})
}
