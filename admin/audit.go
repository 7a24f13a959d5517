package admin

import (
	"bufio"
	"encoding/csv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

const (
	auditPerPage = 50
	// exportBatch and exportMax bound what one CSV export reads and holds.
	exportBatch = 1000
	exportMax   = 100_000
)

// auditActions are the action filter's choices.
var auditActions = []string{
	tenants.ActionSubmissionAccepted, tenants.ActionRecordAccepted, tenants.ActionConsentGranted,
	tenants.ActionConsentRevoked, tenants.ActionConsentExpired, tenants.ActionGDPRAnonymised,
	tenants.ActionAPIKeyIssued, tenants.ActionAPIKeyRevoked, tenants.ActionFormChanged, tenants.ActionStaffLogin,
	tenants.ActionStaffCreated, tenants.ActionTenantCreated, tenants.ActionTenantChanged, tenants.ActionWebhookChanged,
}

// auditLog lists the audit log of the user's tenant (a platform admin without a chosen tenant
// sees every tenant's), newest first, filtered.
func (h *handler) auditLog(c *fiber.Ctx, s *session) error {
	f, q, errs := auditFilter(c)
	page := queryPage(c)
	p := web.AuditPage{Layout: h.layout(c, s, "Audit log", web.NavAudit), Filter: f, Actions: auditActions,
		Errors: errs, Pager: web.Pager{Page: page}}
	if len(errs) > 0 {
		return h.invalid(c, web.Audit(p))
	}
	q.Skip, q.Limit = int64((page-1)*auditPerPage), auditPerPage+1
	entries, err := h.Store.Audit.List(c.UserContext(), s.TenantID, q)
	if err != nil {
		return err
	}
	p.Pager.HasNext = len(entries) > auditPerPage
	p.Entries = auditView(entries[:min(len(entries), auditPerPage)])
	return h.render(c, fiber.StatusOK, web.Audit(p))
}

// auditExport streams the filtered log as CSV. Its columns hold no personal data, as the
// entries hold none; the keyed hash of a person (Subject) and free-text details are left out.
func (h *handler) auditExport(c *fiber.Ctx, s *session) error {
	_, q, errs := auditFilter(c)
	if len(errs) > 0 {
		return h.invalid(c, web.Audit(web.AuditPage{Layout: h.layout(c, s, "Audit log", web.NavAudit), Actions: auditActions, Errors: errs}))
	}
	ctx := c.UserContext()
	var rows [][]string
	for q.Skip = 0; q.Skip < exportMax; q.Skip += exportBatch {
		q.Limit = exportBatch
		batch, err := h.Store.Audit.List(ctx, s.TenantID, q)
		if err != nil {
			return err
		}
		for _, e := range batch {
			rows = append(rows, auditRow(e))
		}
		if len(batch) < exportBatch {
			break
		}
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="audit-`+h.now().Format("20060102-150405")+`.csv"`)
	w := bufio.NewWriter(c.Response().BodyWriter())
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"time", "tenant", "actor", "action", "record_ids", "counts", "request_id"})
	_ = cw.WriteAll(rows)
	return w.Flush()
}

func auditRow(e tenants.AuditEntry) []string {
	var counts []string
	for _, k := range slices.Sorted(maps.Keys(e.Counts)) {
		counts = append(counts, k+"="+strconv.Itoa(e.Counts[k]))
	}
	row := []string{e.Time.UTC().Format(time.RFC3339), e.TenantID, e.Actor, e.Action, strings.Join(e.RecordIDs, " "),
		strings.Join(counts, " "), e.RequestID}
	for i, v := range row {
		row[i] = csvSafe(v)
	}
	return row
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// auditFilter reads the query: the page's filter as typed and the store's filter; dates
// are whole UTC days, "to" included.
func auditFilter(c *fiber.Ctx) (web.AuditFilter, tenants.AuditFilter, web.FieldErrors) {
	f := web.AuditFilter{Action: c.Query("action"), Actor: strings.TrimSpace(c.Query("actor")),
		From: strings.TrimSpace(c.Query("from")), To: strings.TrimSpace(c.Query("to"))}
	if !slices.Contains(auditActions, f.Action) {
		f.Action = ""
	}
	q := tenants.AuditFilter{Action: f.Action, Actor: f.Actor}
	errs := web.FieldErrors{}
	if f.From != "" {
		d, err := time.Parse(time.DateOnly, f.From)
		if err != nil {
			errs["from"] = "Give a date as YYYY-MM-DD."
		}
		q.From = d
	}
	if f.To != "" {
		d, err := time.Parse(time.DateOnly, f.To)
		if err != nil {
			errs["to"] = "Give a date as YYYY-MM-DD."
		}
		q.To = d.Add(24 * time.Hour)
	}
	if len(errs) == 0 && !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		errs["to"] = "Give a date on or after the start date."
	}
	return f, q, errs
}

func auditView(entries []tenants.AuditEntry) []web.AuditEntry {
	out := make([]web.AuditEntry, len(entries))
	for i, e := range entries {
		out[i] = web.AuditEntry{Time: e.Time, Actor: e.Actor, Action: e.Action, RecordIDs: e.RecordIDs,
			Counts: e.Counts, RequestID: e.RequestID}
	}
	return out
}

// appendAudit appends one entry by the signed-in user in its tenant.
func (h *handler) appendAudit(c *fiber.Ctx, s *session, action string, ids []string, detail string) error {
	return h.Store.Audit.Append(c.UserContext(), tenants.AuditEntry{Time: h.now(), TenantID: s.TenantID, Actor: actor(s),
		Action: action, RecordIDs: ids, Detail: detail, RequestID: requestID(c)})
}
