package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/consentforms/consentforms/tenants"
)

var _ tenants.MatchKeyRepo = (*Writer)(nil)

// Rekey replaces the records' contact phones and match keys in their bodies and in the match
// key index, the whole batch in one transaction (one fsync).
func (w *Writer) Rekey(ctx context.Context, batch []tenants.Rekeying) error {
	return w.inTx(ctx, func(tx *sql.Tx, st statements) error {
		for _, r := range batch {
			row, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+recordCols+` FROM records WHERE tenant_id = ? AND kind = ? AND public_id = ?`,
				r.TenantID, string(r.Kind), r.PublicID))
			if err != nil {
				return translate("get record", err)
			}
			rec := row.rec
			rec.Contact.PhoneNumber, rec.MatchKeys = r.Phone, r.Keys
			if err := rewrite(ctx, tx, st, row, rec); err != nil {
				return err
			}
		}
		return nil
	})
}

// KeyingVersion implements tenants.MatchKeyRepo.
func (w *Writer) KeyingVersion(ctx context.Context) (int, error) {
	var v string
	err := w.s.r.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = 'keying_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, translate("keying version", err)
	}
	return strconv.Atoi(v)
}

// SetKeyingVersion implements tenants.MatchKeyRepo.
func (w *Writer) SetKeyingVersion(ctx context.Context, version int) error {
	_, err := w.s.w.ExecContext(ctx, `INSERT INTO store_meta (key, value) VALUES ('keying_version', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(version))
	return translate("set keying version", err)
}
