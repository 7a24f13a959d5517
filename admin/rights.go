package admin

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// The access export, the re-permission list and retention settings (docs/API.md §5.5, §7.3,
// §10.7), through ops.Rights as the API does.

// exportPerson downloads a person's data as the JSON of POST /api/v1/gdpr/export.
func (h *handler) exportPerson(c *fiber.Ctx, s *session) error {
	email, phone := personInput(c)
	id, errs := h.identity(c, s, email, phone)
	if len(errs) > 0 {
		return h.invalid(c, web.AnonymiseSearch(web.AnonymiseSearchPage{Layout: h.layout(c, s, "Anonymise", web.NavAnonymise),
			Email: email, Phone: phone, Errors: errs}))
	}
	out, err := h.Rights.Export(c.UserContext(), s.TenantID, actor(s), requestID(c), id)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="person-export-`+h.now().Format("20060102-150405")+`.json"`)
	return c.JSON(h.ExportJSON(out))
}

// expiringPerPage is the page size of the re-permission list in the staff UI.
const expiringPerPage = 50

// expiringCSVMax bounds one CSV export of the re-permission list.
const expiringCSVMax = 100_000

// expiringRequest reads the list's filter; errors are keyed by input.
func (h *handler) expiringRequest(c *fiber.Ctx) (web.ExpiringFilter, ops.ExpiringRequest, web.FieldErrors) {
	f := web.ExpiringFilter{Channel: c.Query("channel", "email"), Within: strings.TrimSpace(c.Query("within", "30d")),
		FormID: c.Query("form")}
	r, vs := ops.ParseExpiring(f.Channel, f.FormID, f.Within, h.now())
	r.Cursor, r.Limit = c.Query("cursor"), expiringPerPage
	// The rules are the API's (ops.ParseExpiring); the wording is the form's.
	wording := map[string]string{"channel": "Choose e-mail or phone.", "within": "Give an interval such as 30d, 2w or P1M.", "form": "Choose a form."}
	errs := web.FieldErrors{}
	for _, v := range vs {
		errs[v.Field] = wording[v.Field]
	}
	return f, r, errs
}

// expiring is the re-permission list page.
func (h *handler) expiring(c *fiber.Ctx, s *session) error {
	f, r, errs := h.expiringRequest(c)
	forms, err := h.Store.Forms.List(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	p := web.ExpiringPage{Layout: h.layout(c, s, "Re-permission", web.NavExpiring), Filter: f, Errors: errs}
	for _, fm := range forms {
		p.Forms = append(p.Forms, web.Option{Value: fm.FormID, Label: fm.FormID})
	}
	if len(errs) > 0 {
		return h.invalid(c, web.Expiring(p))
	}
	page, err := h.Rights.Expiring(c.UserContext(), s.TenantID, actor(s), requestID(c), r)
	if errors.Is(err, ops.ErrBadCursor) {
		p.Errors["cursor"] = "This link is out of date; start from the first page."
		return h.invalid(c, web.Expiring(p))
	}
	if err != nil {
		return err
	}
	for _, it := range page.Items {
		p.Rows = append(p.Rows, expiringRow(it))
	}
	if page.NextCursor != nil {
		p.NextCursor = *page.NextCursor
	}
	return h.render(c, fiber.StatusOK, web.Expiring(p))
}

func expiringRow(it ops.ExpiringItem) web.ExpiringRow {
	row := web.ExpiringRow{SubmissionID: it.SubmissionID, Kind: string(it.Kind), FormID: it.FormID, Deadline: it.Deadline}
	for _, v := range []*string{it.Email, it.PhoneNumber} {
		if v != nil {
			row.Contact = *v
		}
	}
	if it.FirstName != nil {
		row.FirstName = *it.FirstName
	}
	return row
}

// expiringCSV streams the whole re-permission list of the filter as CSV, page after page;
// every cell goes through csvSafe as in the audit export.
func (h *handler) expiringCSV(c *fiber.Ctx, s *session) error {
	_, r, errs := h.expiringRequest(c)
	if len(errs) > 0 {
		return fiber.NewError(fiber.StatusBadRequest, "invalid filter")
	}
	r.Limit, r.Cursor = 500, ""
	ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
	tenantID, who, reqID := s.TenantID, actor(s), requestID(c)
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="repermission-`+r.Channel+"-"+h.now().Format("20060102-150405")+`.csv"`)
	// The first page is read before the answer starts, so that a failure is still an error page.
	first, err := h.Rights.Expiring(ctx, tenantID, who, reqID, r)
	if err != nil {
		cancel()
		return err
	}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"deadline", "first_name", r.Channel, "form_id", "record_kind", "record_id"})
		page, rows := first, 0
		for {
			for _, it := range page.Items {
				row := expiringRow(it)
				cells := []string{row.Deadline.UTC().Format("2006-01-02T15:04:05Z"), row.FirstName, row.Contact, row.FormID, row.Kind, row.SubmissionID}
				for i := range cells {
					cells[i] = csvSafe(cells[i])
				}
				_ = cw.Write(cells)
				rows++
			}
			cw.Flush()
			if page.NextCursor == nil || rows >= expiringCSVMax || cw.Error() != nil {
				return
			}
			r.Cursor = *page.NextCursor
			if page, err = h.Rights.Expiring(ctx, tenantID, who, reqID, r); err != nil {
				h.log.Error("re-permission export", "err", err, "requestId", reqID)
				return
			}
		}
	})
	return nil
}

// retentionErrors checks a retention setting; keys retention, retention_from.
func retentionErrors(retention, from string, errs web.FieldErrors) {
	addViolations(errs, provision.CheckRetention(retention, from))
}

// retentionDue counts what the form's saved retention anonymises in the next 30 days; the
// caller asks only for a form that has one.
func (h *handler) retentionDue(c *fiber.Ctx, s *session, f tenants.Form) (*int64, error) {
	n, err := h.Rights.RetentionPreview(c.UserContext(), s.TenantID, f.FormID, f.Retention, f.RetentionFrom)
	return &n, err
}

// tenantRetention saves a tenant's default retention (platform admins).
func (h *handler) tenantRetention(c *fiber.Ctx, s *session) error {
	in := web.TenantRetentionInput{TenantID: c.FormValue("tenant"), Retention: strings.TrimSpace(c.FormValue("retention")),
		RetentionFrom: c.FormValue("retention_from")}
	t, err := h.provision().SetTenantRetention(c.UserContext(), by(c, s), in.TenantID, in.Retention, in.RetentionFrom)
	if errs, ok := fieldErrors(err); ok {
		return h.renderTenantsWith(c, s, fiber.StatusUnprocessableEntity, web.TenantInput{}, nil, in, errs)
	}
	h.PurgeTenant(in.TenantID)
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathTenants, success("Default retention of “"+t.Name+"” saved."))
}
