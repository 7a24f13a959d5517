package admin

import (
	"bufio"
	"context"
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

const auditPerPage = 50

// exportTimeout bounds one CSV export.
const exportTimeout = 10 * time.Minute

// auditActions are the action filter's choices.
var auditActions = []string{
	tenants.ActionConsentGranted, tenants.ActionRecordCreated, tenants.ActionSubmissionAccepted, tenants.ActionRecordAccepted,
	tenants.ActionConsentRevoked, tenants.ActionConsentExpired, tenants.ActionGDPRAnonymised,
	tenants.ActionAPIKeyIssued, tenants.ActionAPIKeyRevoked, tenants.ActionFormChanged, tenants.ActionStaffLogin,
	tenants.ActionStaffCreated, tenants.ActionStaffDisabled, tenants.ActionStaffEnabled, tenants.ActionStaffPassword,
	tenants.ActionTenantCreated, tenants.ActionTenantChanged, tenants.ActionWebhookChanged,
	tenants.ActionSMSNumberAdded, tenants.ActionSMSNumberRemoved, tenants.ActionSMSStopWords, tenants.ActionSMSOptInKeyword,
	tenants.ActionGDPRExported, tenants.ActionGDPRMentionsRemoved, tenants.ActionConsentsExpiringListed, tenants.ActionRetentionAnonymised,
}

// auditLog lists the audit log of the user's tenant (a platform admin without a chosen tenant
// sees every tenant's), newest first, filtered.
func (h *handler) auditLog(c *fiber.Ctx, s *session) error {
	f, q, errs := auditFilter(c)
	if err := h.filterActor(c.UserContext(), s, &q, errs); err != nil {
		return err
	}
	p := web.AuditPage{Layout: h.layout(c, s, "Audit log", web.NavAudit), Filter: f, Actions: auditActions, Errors: errs}
	if len(errs) > 0 {
		return h.invalid(c, web.Audit(p))
	}
	cur, ok := listCursor(c)
	if !ok {
		return c.Redirect(f.URL(""), fiber.StatusFound)
	}
	entries, newer, older, err := keysetPage(cur, auditPerPage, func(cur *tenants.Cursor) ([]tenants.AuditEntry, error) {
		q.Cursor, q.Limit = cur, auditPerPage+1
		return h.listAudit(c.UserContext(), s, q)
	}, func(e tenants.AuditEntry) tenants.Cursor { return tenants.Cursor{Time: e.Time, ID: e.ID} })
	if err != nil {
		return err
	}
	p.Pager = pagerOf(f.URL, newer, older)
	if p.Chain, err = h.chainStatus(c.UserContext(), s); err != nil {
		return err
	}
	if p.Entries, err = h.auditView(c.UserContext(), s, entries); err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.Audit(p))
}

// auditExport streams the filtered log as CSV. Its columns hold no personal data, as the entries
// hold none; the keyed hash of a person (Subject) and free-text details are left out.
func (h *handler) auditExport(c *fiber.Ctx, s *session) error {
	_, q, errs := auditFilter(c)
	if err := h.filterActor(c.UserContext(), s, &q, errs); err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.invalid(c, web.Audit(web.AuditPage{Layout: h.layout(c, s, "Audit log", web.NavAudit), Actions: auditActions, Errors: errs}))
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="audit-`+h.now().Format("20060102-150405")+`.csv"`)
	all := isPlatformAdmin(s) && s.TenantID == ""
	tenantID, reqID := s.TenantID, requestID(c)
	// The body is written as the store reads the rows, after the handler returns: an export of
	// any size holds a buffer, never the whole log.
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"time", "tenant", "actor", "action", "record_ids", "counts", "request_id", "id", "chain", "prev", "hash"})
		write := func(e tenants.AuditEntry) error { return cw.Write(auditRow(e)) }
		var err error
		if all {
			err = h.Store.Audit.EachAll(ctx, q, write)
		} else {
			err = h.Store.Audit.Each(ctx, tenantID, q, write)
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
		if err != nil {
			// The status line is sent: the log says why the file ended early.
			h.log.Error("audit export", "err", err, "requestId", reqID)
		}
	})
	return nil
}

// listAudit lists the user's tenant's entries; a platform admin without a chosen tenant sees
// every tenant's.
func (h *handler) listAudit(ctx context.Context, s *session, q tenants.AuditFilter) ([]tenants.AuditEntry, error) {
	if isPlatformAdmin(s) && s.TenantID == "" {
		return h.Store.Audit.ListAll(ctx, q)
	}
	return h.Store.Audit.List(ctx, s.TenantID, q)
}

func auditRow(e tenants.AuditEntry) []string {
	var counts []string
	for _, k := range slices.Sorted(maps.Keys(e.Counts)) {
		counts = append(counts, k+"="+strconv.Itoa(e.Counts[k]))
	}
	row := []string{e.Time.UTC().Format(time.RFC3339), e.TenantID, e.Actor, e.Action, strings.Join(e.RecordIDs, " "),
		strings.Join(counts, " "), e.RequestID, e.ID, chainPos(e.Chain), e.Prev, e.Hash}
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

// appendAudit appends one entry by the signed-in user in its tenant.
func (h *handler) appendAudit(c *fiber.Ctx, s *session, action string, ids []string, detail string) error {
	return h.Store.Audit.Append(c.UserContext(), tenants.AuditEntry{Time: h.now(), TenantID: s.TenantID, Actor: actor(s),
		Action: action, RecordIDs: ids, Detail: detail, RequestID: requestID(c)})
}

// chainPos is an entry's place in its tenant's chain; "" for an entry from before chaining.
func chainPos(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
