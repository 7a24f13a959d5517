package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// SubjectRequests keeps data-subject requests, one row each whose doc is the request in JSON.
// open_key holds the person and kind while a request is open, under a unique index, so that
// two filings at once store one request.
type SubjectRequests struct{ s *Store }

var _ tenants.SubjectRequestRepo = (*SubjectRequests)(nil)

// openKey is what the unique index holds for an open request.
func openKey(r tenants.SubjectRequest) string { return "open:" + r.Kind + ":" + r.Subject }

// FileSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) FileSubjectRequest(ctx context.Context, req tenants.SubjectRequest) (tenants.SubjectRequest, bool, error) {
	doc, err := json.Marshal(req)
	if err != nil {
		return req, false, err
	}
	_, err = r.s.w.ExecContext(ctx, `INSERT INTO subject_requests (id, tenant_id, subject, record_id, status, open_key, filed_at, doc)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, req.ID, req.TenantID, req.Subject, req.RecordID, req.Status, openKey(req), ms(req.FiledAt), string(doc))
	if err = translate("file subject request", err); !errors.Is(err, tenants.ErrConflict) {
		return req, err == nil, err
	}
	open, err := scanSubjectRequest(r.s.w.QueryRowContext(ctx, `SELECT doc FROM subject_requests WHERE tenant_id = ? AND open_key = ?`,
		req.TenantID, openKey(req)))
	if errors.Is(err, sql.ErrNoRows) { // the same id filed and closed already: a repeat
		open, err = scanSubjectRequest(r.s.w.QueryRowContext(ctx, `SELECT doc FROM subject_requests WHERE tenant_id = ? AND id = ?`, req.TenantID, req.ID))
	}
	return open, false, translate("file subject request", err)
}

// GetSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) GetSubjectRequest(ctx context.Context, tenantID, id string) (tenants.SubjectRequest, error) {
	req, err := scanSubjectRequest(r.s.r.QueryRowContext(ctx, `SELECT doc FROM subject_requests WHERE tenant_id = ? AND id = ?`, tenantID, id))
	return req, translate("get subject request", err)
}

// ListSubjectRequests implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) ListSubjectRequests(ctx context.Context, tenantID string, f tenants.SubjectRequestFilter, limit int) ([]tenants.SubjectRequest, error) {
	where, args := []string{"tenant_id = ?"}, []any{tenantID}
	for _, c := range [][2]string{{"status", f.Status}, {"subject", f.Subject}, {"record_id", f.RecordID}} {
		if c[1] != "" {
			where, args = append(where, c[0]+" = ?"), append(args, c[1])
		}
	}
	q := `SELECT doc FROM subject_requests WHERE ` + strings.Join(where, " AND ") + ` ORDER BY filed_at DESC, id`
	if limit > 0 {
		q, args = q+` LIMIT ?`, append(args, limit)
	}
	return queryAll(ctx, r.s.r, "list subject requests", scanSubjectRequest, q, args...)
}

// CloseSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) CloseSubjectRequest(ctx context.Context, tenantID, id, by string, at time.Time) error {
	return r.s.Writer.inTx(ctx, func(tx *sql.Tx, _ statements) error {
		req, err := scanSubjectRequest(tx.QueryRowContext(ctx, `SELECT doc FROM subject_requests WHERE tenant_id = ? AND id = ?`, tenantID, id))
		if err != nil {
			return translate("get subject request", err)
		}
		if req.Status != tenants.SubjectRequestOpen {
			return tenants.ErrConflict
		}
		at = at.UTC()
		req.Status, req.DoneBy, req.DoneAt = tenants.SubjectRequestDone, by, &at
		doc, err := json.Marshal(req)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE subject_requests SET status = ?, open_key = id, doc = ? WHERE tenant_id = ? AND id = ?`,
			req.Status, string(doc), tenantID, id)
		return translate("close subject request", err)
	})
}

func scanSubjectRequest(row scanner) (tenants.SubjectRequest, error) {
	var req tenants.SubjectRequest
	var doc string
	if err := row.Scan(&doc); err != nil {
		return req, err
	}
	return req, json.Unmarshal([]byte(doc), &req)
}
