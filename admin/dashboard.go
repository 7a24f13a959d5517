package admin

import (
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// recentActivity is how many audit entries the dashboard shows.
const recentActivity = 10

func (h *handler) dashboard(c *fiber.Ctx, s *session) error {
	ctx := c.UserContext()
	p := web.DashboardPage{Layout: h.layout(c, s, "Dashboard", web.NavDashboard)}
	var counts tenants.Counts
	for _, k := range tenants.Kinds {
		n, err := h.Store.Records.Count(ctx, s.TenantID, k)
		if err != nil {
			return err
		}
		counts.Add(k, int(n))
	}
	p.Records = recordCounts(counts)
	stats, err := h.Store.Records.ConsentStats(ctx, s.TenantID, tenants.KindFormSubmission, h.now())
	if err != nil {
		return err
	}
	p.Consents = web.ConsentCounts{PrimaryPurpose: statusCounts(stats.PrimaryPurpose),
		GeneralContactEmail: statusCounts(stats.GeneralContactEmail), GeneralContactPhone: statusCounts(stats.GeneralContactPhone)}
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
