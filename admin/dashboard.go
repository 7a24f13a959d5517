package admin

import (
	"context"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// recentActivity is how many audit entries the dashboard shows.
const recentActivity = 10

// dashboard counts records, who may be contacted per record kind and consent status from the
// covering index of the consent columns, and draws the trends from indexes (dashboard_chart.go).
func (h *handler) dashboard(c *fiber.Ctx, s *session) error {
	ctx := c.UserContext()
	p := web.DashboardPage{Layout: h.layout(c, s, "Dashboard", web.NavDashboard)}
	now := h.now()
	var counts tenants.Counts
	var all tenants.ConsentStats
	for _, k := range tenants.Kinds() {
		stats, err := h.Store.Records.ConsentStats(ctx, s.TenantID, k, now)
		if err != nil {
			return err
		}
		counts.Add(k, int(stats.Records()))
		p.Contactable = append(p.Contactable, kindConsents(k, stats))
		all = all.Plus(stats)
	}
	p.Records = recordCounts(counts)
	p.Consents = web.ConsentCounts{PrimaryPurpose: statusCounts(all.PrimaryPurpose),
		GeneralContactEmail: statusCounts(all.GeneralContactEmail), GeneralContactPhone: statusCounts(all.GeneralContactPhone)}
	var err error
	if p.Submissions, err = h.submissionsChart(ctx, s.TenantID, now); err != nil {
		return err
	}
	if p.Expiring, err = h.expiringChart(ctx, s.TenantID, now); err != nil {
		return err
	}
	if p.OptIn, err = h.optIn(ctx, s.TenantID, now); err != nil {
		return err
	}
	if h.may(s, permBulkApprove) {
		if p.AwaitingApproval, err = h.awaitingApproval(ctx, s); err != nil {
			return err
		}
	}
	if h.may(s, permAuditRead) {
		entries, err := h.listAudit(ctx, s, tenants.AuditFilter{Limit: recentActivity})
		if err != nil {
			return err
		}
		if p.Recent, err = h.auditView(ctx, s, entries); err != nil {
			return err
		}
	}
	return h.render(c, fiber.StatusOK, web.Dashboard(p))
}

// statusCounts is the view of one consent's counts per status.
func statusCounts(c tenants.StatusCounts) web.StatusCounts {
	return web.StatusCounts{Granted: int(c.Granted), Expired: int(c.Expired), Revoked: int(c.Revoked), NotGranted: int(c.NotGranted)}
}

// awaitingApproval lists the tenant's bulk erasure requests still pending that s may decide
// (requested by someone else), oldest first.
func (h *handler) awaitingApproval(ctx context.Context, s *session) ([]web.BulkItem, error) {
	list, err := h.Store.Bulk.ListBulk(ctx, s.TenantID)
	if err != nil {
		return nil, err
	}
	var names map[string]string
	var out []web.BulkItem
	for _, b := range slices.Backward(list) {
		if b.Status != tenants.BulkPending || b.RequestedBy == s.Staff.ID {
			continue
		}
		if names == nil {
			names = h.staffNames(ctx, s.TenantID)
		}
		out = append(out, bulkItem(b, names))
	}
	return out, nil
}
