package sqlite

import (
	"context"
	"database/sql"

	"github.com/consentforms/consentforms/tenants"
)

// AuditChains reads the audit log's hash chains and keeps their verifications. Appends chain
// entries themselves (appendAudit), in the writing transaction.
type AuditChains struct{ s *Store }

var _ tenants.AuditChainRepo = (*AuditChains)(nil)

// ChainTenants lists the tenants with a chained entry.
func (r *AuditChains) ChainTenants(ctx context.Context) ([]string, error) {
	rows, err := r.s.r.QueryContext(ctx, `SELECT DISTINCT tenant_id FROM audit WHERE chain IS NOT NULL ORDER BY tenant_id`)
	if err != nil {
		return nil, translate("list audit chains", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate("list audit chains", err)
		}
		ids = append(ids, id)
	}
	return ids, translate("list audit chains", rows.Err())
}

// EachChained streams the tenant's chain in order, in keyset chunks (see eachChunk).
func (r *AuditChains) EachChained(ctx context.Context, tenantID string, fn func(tenants.AuditEntry) error) error {
	var after int64
	for {
		n, err := r.chunk(ctx, tenantID, after, func(e tenants.AuditEntry) error {
			after = e.Chain
			return fn(e)
		})
		if err != nil || n < eachChunk {
			return err
		}
	}
}

func (r *AuditChains) chunk(ctx context.Context, tenantID string, after int64, fn func(tenants.AuditEntry) error) (int, error) {
	rows, err := r.s.r.QueryContext(ctx, `SELECT `+auditCols+` FROM audit WHERE tenant_id = ? AND chain > ? ORDER BY chain LIMIT ?`,
		tenantID, after, eachChunk)
	if err != nil {
		return 0, translate("walk audit chain", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return n, translate("walk audit chain", err)
		}
		n++
		if err := fn(e); err != nil {
			return n, err
		}
	}
	return n, translate("walk audit chain", rows.Err())
}

const verificationCols = `tenant_id, verified_at, entries, head_chain, head_hash, last_id, up_to, ok, broken_id`

// SaveVerification replaces the tenant's last verification.
func (r *AuditChains) SaveVerification(ctx context.Context, v tenants.ChainVerification) error {
	return r.s.Writer.inTx(ctx, func(tx *sql.Tx, _ statements) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO audit_verifications (`+verificationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			v.TenantID, ms(v.VerifiedAt), v.Entries, v.Head.Chain, v.Head.Hash, v.LastID, ms(v.UpTo), v.OK, v.BrokenID)
		return translate("save audit verification", err)
	})
}

// LastVerification returns the tenant's last verification.
func (r *AuditChains) LastVerification(ctx context.Context, tenantID string) (tenants.ChainVerification, error) {
	v, err := scanVerification(r.s.r.QueryRowContext(ctx, `SELECT `+verificationCols+` FROM audit_verifications WHERE tenant_id = ?`, tenantID))
	return v, translate("read audit verification", err)
}

// Verifications lists every tenant's last verification.
func (r *AuditChains) Verifications(ctx context.Context) ([]tenants.ChainVerification, error) {
	var out []tenants.ChainVerification
	err := each(ctx, r.s.r, scanVerification, `SELECT `+verificationCols+` FROM audit_verifications ORDER BY tenant_id`,
		func(v tenants.ChainVerification) error {
			out = append(out, v)
			return nil
		})
	return out, err
}

func scanVerification(row scanner) (tenants.ChainVerification, error) {
	var v tenants.ChainVerification
	var at, upTo int64
	err := row.Scan(&v.TenantID, &at, &v.Entries, &v.Head.Chain, &v.Head.Hash, &v.LastID, &upTo, &v.OK, &v.BrokenID)
	v.VerifiedAt, v.UpTo = fromMS(at), fromMS(upTo)
	return v, err
}

// Acknowledgments lists the tenant's audit.acknowledged entries.
func (r *AuditChains) Acknowledgments(ctx context.Context, tenantID string) ([]tenants.AuditEntry, error) {
	return r.s.Audit.List(ctx, tenantID, tenants.AuditFilter{Action: tenants.ActionAuditAcknowledged})
}
