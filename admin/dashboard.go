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
	for _, k := range tenants.Kinds {
		n, err := h.Store.Records.Count(ctx, s.TenantID, k)
		if err != nil {
			return err
		}
		setCount(&p.Records, k, int(n))
	}
	stats, err := h.Store.Records.ConsentStats(ctx, s.TenantID, tenants.KindFormSubmission, h.now())
	if err != nil {
		return err
	}
	for name, dst := range map[string]*web.StatusCounts{
		tenants.ConsentPrimaryPurpose:      &p.Consents.PrimaryPurpose,
		tenants.ConsentGeneralContactEmail: &p.Consents.GeneralContactEmail,
		tenants.ConsentGeneralContactPhone: &p.Consents.GeneralContactPhone,
	} {
		m := stats[name]
		*dst = web.StatusCounts{Granted: int(m[tenants.StatusGranted]), Expired: int(m[tenants.StatusExpired]),
			Revoked: int(m[tenants.StatusRevoked]), NotGranted: int(m[tenants.StatusNotGranted])}
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

// setCount files n under kind.
func setCount(c *web.RecordCounts, kind tenants.Kind, n int) {
	switch kind {
	case tenants.KindFormSubmission:
		c.FormSubmissions = n
	case tenants.KindDigitisation:
		c.DigitisationSubmissions = n
	case tenants.KindCanvassing:
		c.CanvassingSubmissions = n
	case tenants.KindPhoneCallTask:
		c.PhoneCallTasks = n
	}
}
