package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// Forms is the forms table, keyed by tenant and form id.
type Forms struct{ s *Store }

var _ tenants.FormRepo = (*Forms)(nil)

const formCols = `tenant_id, form_id, name, open, fields, created_at, updated_at, retention, retention_from,
	language, double_opt_in, confirm_within, primary_for, contact_for, settings`

// Insert stores a new form; ErrConflict when the tenant has one with the same form id.
func (r *Forms) Insert(ctx context.Context, f tenants.Form) error {
	args, err := formArgs(f)
	if err != nil {
		return err
	}
	_, err = r.s.w.ExecContext(ctx, `INSERT INTO forms (`+formCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	return translate("insert form", err)
}

// formSettings is the settings column: the settings of a form's public ways in.
type formSettings struct {
	HostedPage    bool   `json:"hostedPage,omitempty"`
	AllowNoJS     bool   `json:"allowNoJs,omitempty"`
	ConsentSource string `json:"consentSource,omitempty"`
	ThankYouMail  bool   `json:"thankYouMail,omitempty"`
	RemindAfter   string `json:"remindAfter,omitempty"`
}

func settingsOf(f tenants.Form) string {
	b, _ := json.Marshal(formSettings{HostedPage: f.HostedPage, AllowNoJS: f.AllowNoJS, ConsentSource: f.ConsentSource, ThankYouMail: f.ThankYouMail,
		RemindAfter: f.RemindAfter})
	return string(b)
}

// formArgs are a form's values in the order of formCols.
func formArgs(f tenants.Form) ([]any, error) {
	fields, err := json.Marshal(f.Fields)
	return []any{f.TenantID, f.FormID, f.Name, f.Open, string(fields), ms(f.CreatedAt), ms(f.UpdatedAt), f.Retention, f.RetentionFrom,
		f.Language, strings.Join(f.DoubleOptIn, ","), f.ConfirmWithin, f.PrimaryFor, f.ContactFor, settingsOf(f)}, err
}

// Get returns the tenant's form with formID.
func (r *Forms) Get(ctx context.Context, tenantID, formID string) (tenants.Form, error) {
	f, err := scanForm(cachedQuerier{cache: r.s.rq}.QueryRowContext(ctx, `SELECT `+formCols+` FROM forms WHERE tenant_id = ? AND form_id = ?`, tenantID, formID))
	return f, translate("get form", err)
}

// Save replaces the tenant's form.
func (r *Forms) Save(ctx context.Context, f tenants.Form) error {
	fields, err := json.Marshal(f.Fields)
	if err != nil {
		return err
	}
	return execOne(ctx, r.s.w, "save form", `UPDATE forms SET name = ?, open = ?, fields = ?, created_at = ?, updated_at = ?,
		retention = ?, retention_from = ?, language = ?, double_opt_in = ?, confirm_within = ?, primary_for = ?, contact_for = ?, settings = ?
		WHERE tenant_id = ? AND form_id = ?`,
		f.Name, f.Open, string(fields), ms(f.CreatedAt), ms(f.UpdatedAt), f.Retention, f.RetentionFrom,
		f.Language, strings.Join(f.DoubleOptIn, ","), f.ConfirmWithin, f.PrimaryFor, f.ContactFor, settingsOf(f), f.TenantID, f.FormID)
}

// List returns the tenant's forms by form id.
func (r *Forms) List(ctx context.Context, tenantID string) ([]tenants.Form, error) {
	return queryAll(ctx, r.s.r, "list forms", scanForm, `SELECT `+formCols+` FROM forms WHERE tenant_id = ? ORDER BY form_id`, tenantID)
}

func scanForm(row scanner) (tenants.Form, error) {
	var f tenants.Form
	var fields, doubleOptIn, settings string
	var created, updated int64
	if err := row.Scan(&f.TenantID, &f.FormID, &f.Name, &f.Open, &fields, &created, &updated, &f.Retention, &f.RetentionFrom,
		&f.Language, &doubleOptIn, &f.ConfirmWithin, &f.PrimaryFor, &f.ContactFor, &settings); err != nil {
		return f, err
	}
	var set formSettings
	if err := json.Unmarshal([]byte(settings), &set); err != nil {
		return f, fmt.Errorf("decode settings of form %s: %w", f.FormID, err)
	}
	f.HostedPage, f.AllowNoJS, f.ConsentSource, f.ThankYouMail = set.HostedPage, set.AllowNoJS, set.ConsentSource, set.ThankYouMail
	f.RemindAfter = set.RemindAfter
	if doubleOptIn != "" {
		f.DoubleOptIn = strings.Split(doubleOptIn, ",")
	}
	f.ID = tenants.FormKey(f.TenantID, f.FormID)
	f.CreatedAt, f.UpdatedAt = fromMS(created), fromMS(updated)
	return f, json.Unmarshal([]byte(fields), &f.Fields)
}
