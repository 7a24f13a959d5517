package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Bulk keeps bulk erasure requests, each as one row whose doc is the request in JSON. Every
// change reads and rewrites the row in one transaction on the writing connection, so the
// conditions of BulkRepo hold.
type Bulk struct{ s *Store }

var _ tenants.BulkRepo = (*Bulk)(nil)

// InsertBulk implements tenants.BulkRepo.
func (r *Bulk) InsertBulk(ctx context.Context, b tenants.BulkErasure) error {
	doc, err := json.Marshal(b)
	if err != nil {
		return err
	}
	_, err = r.s.w.ExecContext(ctx, `INSERT INTO bulk_erasures (id, tenant_id, status, requested_at, expires_at, doc) VALUES (?, ?, ?, ?, ?, ?)`,
		b.ID, b.TenantID, b.Status, ms(b.RequestedAt), ms(b.ExpiresAt), string(doc))
	return translate("insert bulk erasure", err)
}

// GetBulk implements tenants.BulkRepo.
func (r *Bulk) GetBulk(ctx context.Context, tenantID, id string) (tenants.BulkErasure, error) {
	b, err := scanBulk(r.s.r.QueryRowContext(ctx, `SELECT doc FROM bulk_erasures WHERE tenant_id = ? AND id = ?`, tenantID, id))
	return b, translate("get bulk erasure", err)
}

// ListBulk implements tenants.BulkRepo.
func (r *Bulk) ListBulk(ctx context.Context, tenantID string) ([]tenants.BulkErasure, error) {
	list, err := queryAll(ctx, r.s.r, "list bulk erasures", scanBulk,
		`SELECT doc FROM bulk_erasures WHERE tenant_id = ? ORDER BY requested_at DESC, id`, tenantID)
	for i := range list {
		list[i].Keys = nil
	}
	return list, err
}

// RunnableBulk implements tenants.BulkRepo.
func (r *Bulk) RunnableBulk(ctx context.Context) ([]tenants.BulkErasure, error) {
	return queryAll(ctx, r.s.r, "runnable bulk erasures", scanBulk,
		`SELECT doc FROM bulk_erasures WHERE status = ? ORDER BY requested_at`, tenants.BulkApproved)
}

// ExpiredBulk implements tenants.BulkRepo.
func (r *Bulk) ExpiredBulk(ctx context.Context, now time.Time) ([]tenants.BulkErasure, error) {
	return queryAll(ctx, r.s.r, "expired bulk erasures", scanBulk,
		`SELECT doc FROM bulk_erasures WHERE status = ? AND expires_at <= ? ORDER BY expires_at`, tenants.BulkPending, ms(now))
}

// DecideBulk implements tenants.BulkRepo.
func (r *Bulk) DecideBulk(ctx context.Context, tenantID, id, status, by string, at time.Time) error {
	return r.change(ctx, tenantID, id, func(b *tenants.BulkErasure) bool {
		if b.Status != tenants.BulkPending {
			return false
		}
		b.Status, b.DecidedBy, b.DecidedAt = status, by, &at
		return true
	})
}

// ProgressBulk implements tenants.BulkRepo.
func (r *Bulk) ProgressBulk(ctx context.Context, tenantID, id string, done int, erased map[string]int) error {
	return r.change(ctx, tenantID, id, func(b *tenants.BulkErasure) bool {
		if b.Status != tenants.BulkApproved || b.Done >= done {
			return false
		}
		b.Done, b.Erased = done, erased
		return true
	})
}

// FinishBulk implements tenants.BulkRepo.
func (r *Bulk) FinishBulk(ctx context.Context, tenantID, id, status string, at time.Time) error {
	return r.change(ctx, tenantID, id, func(b *tenants.BulkErasure) bool {
		b.Status, b.FinishedAt, b.Keys = status, &at, nil
		return true
	})
}

// change applies fn to the request in one transaction; ErrConflict when fn refuses.
func (r *Bulk) change(ctx context.Context, tenantID, id string, fn func(b *tenants.BulkErasure) bool) error {
	return r.s.Writer.inTx(ctx, func(tx *sql.Tx, _ statements) error {
		b, err := scanBulk(tx.QueryRowContext(ctx, `SELECT doc FROM bulk_erasures WHERE tenant_id = ? AND id = ?`, tenantID, id))
		if err != nil {
			return translate("get bulk erasure", err)
		}
		if !fn(&b) {
			return tenants.ErrConflict
		}
		doc, err := json.Marshal(b)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE bulk_erasures SET status = ?, doc = ? WHERE tenant_id = ? AND id = ?`, b.Status, string(doc), tenantID, id)
		return translate("update bulk erasure", err)
	})
}

func scanBulk(row scanner) (tenants.BulkErasure, error) {
	var b tenants.BulkErasure
	var doc string
	if err := row.Scan(&doc); err != nil {
		return b, err
	}
	return b, json.Unmarshal([]byte(doc), &b)
}
