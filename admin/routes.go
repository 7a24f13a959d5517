package admin

import (
	"errors"
	"strings"

	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// access is who may use a route: the casbin object and action a role must be allowed, and
// whether the route works on one tenant's data.
type access struct {
	obj, act string
	// tenant: the route needs a tenant; a platform admin who has not chosen one is asked to.
	tenant bool
}

// Who may use a route beyond the casbin check.
const (
	signedIn = iota // a session and the role's permission for obj/act
	public          // anyone (the sign-in page); unsafe methods still need the pre-session CSRF token
	anyStaff        // any signed-in user, no casbin check (sign-out, own password)
)

// route is one row of the route table.
type route struct {
	method, path string
	access
	who int
	h   pageFunc
}

// pageFunc handles a request of a signed-in user (s is nil on public routes).
type pageFunc func(c *fiber.Ctx, s *session) error

const (
	get  = fiber.MethodGet
	post = fiber.MethodPost
)

// routes is the route table, and so the authorization table: every admin route with the
// casbin object and action it needs (policies/policy.csv).
func (h *handler) routes() []route {
	return append(h.webhookRoutes(), []route{
		{get, web.PathLogin, access{}, public, h.loginPage},
		{post, web.PathLogin, access{}, public, h.login},
		{post, web.PathLogout, access{}, anyStaff, h.logout},
		{get, web.PathPassword, access{}, anyStaff, h.passwordPage},
		{post, web.PathPassword, access{}, anyStaff, h.passwordChange},

		{get, web.PathDashboard, tenantData(permDashboardRead), signedIn, h.dashboard},
		{get, web.PathChooseTenant, permTenantsSwitch, signedIn, h.chooseTenantPage},
		{post, web.PathChooseTenant, permTenantsSwitch, signedIn, h.chooseTenant},

		{get, web.PathForms, tenantData(permFormsRead), signedIn, h.forms},
		{get, web.PathFormNew, tenantData(permFormsWrite), signedIn, h.formNew},
		{post, web.PathForms, tenantData(permFormsWrite), signedIn, h.formCreate},
		{post, web.PathOrganisation, tenantData(permFormsWrite), signedIn, h.organisationSave},
		{get, web.PathForms + "/:id", tenantData(permFormsRead), signedIn, h.formEdit},
		{post, web.PathForms + "/:id", tenantData(permFormsWrite), signedIn, h.formSave},
		{get, web.PathForms + "/:id/texts", tenantData(permFormsWrite), signedIn, h.textPage},
		{post, web.PathForms + "/:id/texts", tenantData(permFormsWrite), signedIn, h.textPost},

		{get, web.PathKeys, tenantData(permKeysRead), signedIn, h.keys},
		{post, web.PathKeys, tenantData(permKeysWrite), signedIn, h.keyIssue},
		{post, web.PathKeys + "/:id/revoke", tenantData(permKeysWrite), signedIn, h.keyRevoke},

		{get, web.PathEndpoints, tenantData(permEndpointsRead), signedIn, h.endpoints},
		{post, web.PathEndpoints, tenantData(permEndpointsWrite), signedIn, h.endpointCreate},
		{get, web.PathEndpoints + "/:id", tenantData(permEndpointsRead), signedIn, h.endpointLog},
		{post, web.PathEndpoints + "/:id/delete", tenantData(permEndpointsWrite), signedIn, h.endpointDelete},
		{post, web.PathEndpoints + "/:id/enable", tenantData(permEndpointsWrite), signedIn, h.endpointEnable},

		{get, web.PathSubmissions, tenantData(permSubmissionsRead), signedIn, h.submissions},
		// Finding a person by e-mail or phone reads contact data; before /:id, which would take "find".
		{get, web.PathFindPerson, tenantData(permContactRead), signedIn, h.findPersonPage},
		{post, web.PathFindPerson, tenantData(permContactRead), signedIn, h.findPerson},
		{get, web.PathSubmissions + "/:id", tenantData(permSubmissionsRead), signedIn, h.submission},
		{get, web.PathRecords + "/:id", tenantData(permSubmissionsRead), signedIn, h.record},

		{get, web.PathAnonymise, tenantData(permGDPRAnonymise), signedIn, h.anonymiseSearch},
		{post, web.PathAnonymisePreview, tenantData(permGDPRAnonymise), signedIn, h.anonymisePreview},
		{post, web.PathAnonymise, tenantData(permGDPRAnonymise), signedIn, h.anonymise},
		{post, web.PathExportPerson, tenantData(permGDPRExport), signedIn, h.exportPerson},

		// Bulk erasure: support staff request, a tenant admin other than the requester approves.
		{get, web.PathBulk, tenantData(permBulkRequest), signedIn, h.bulkList},
		{post, web.PathBulkPreview, tenantData(permBulkRequest), signedIn, h.bulkPreview},
		{post, web.PathBulk, tenantData(permBulkRequest), signedIn, h.bulkRequest},
		{get, web.PathBulk + "/:id", tenantData(permBulkRequest), signedIn, h.bulkPage},
		{post, web.PathBulk + "/:id/approve", tenantData(permBulkApprove), signedIn, h.bulkApprove},
		{post, web.PathBulk + "/:id/reject", tenantData(permBulkApprove), signedIn, h.bulkReject},

		// Data-subject requests name the person by keyed hash; carrying one out exports or erases.
		{get, web.PathRequests, tenantData(permGDPRExport), signedIn, h.requestList},
		{post, web.PathRequests + "/:id/export", tenantData(permGDPRExport), signedIn, h.requestExport},
		{post, web.PathRequests + "/:id/complete", tenantData(permGDPRAnonymise), signedIn, h.requestComplete},

		// The re-permission list shows e-mail addresses and phone numbers.
		{get, web.PathExpiring, tenantData(permContactRead), signedIn, h.expiring},
		{get, web.PathExpiringCSV, tenantData(permContactRead), signedIn, h.expiringCSV},

		{get, web.PathUnsubscribe, tenantData(permUnsubscribeWrite), signedIn, h.unsubscribePage},
		{post, web.PathUnsubscribe, tenantData(permUnsubscribeWrite), signedIn, h.unsubscribe},

		// The audit log of a platform admin who has chosen no tenant spans every tenant.
		{get, web.PathAudit, permAuditRead, signedIn, h.auditLog},
		{get, web.PathAuditExport, permAuditExport, signedIn, h.auditExport},

		{get, web.PathTenants, permTenantsRead, signedIn, h.tenants},
		{post, web.PathTenants, permTenantsWrite, signedIn, h.tenantCreate},
		{post, web.PathTenantRetention, permTenantsWrite, signedIn, h.tenantRetention},
		{post, web.PathTenantCountry, permTenantsWrite, signedIn, h.tenantCountry},

		{get, web.PathStaff, permStaffRead, signedIn, h.staff},
		{post, web.PathStaff, permStaffWrite, signedIn, h.staffCreate},
		{post, web.PathStaff + "/:id/disable", permStaffWrite, signedIn, h.staffDisable},
		{post, web.PathStaff + "/:id/enable", permStaffWrite, signedIn, h.staffEnable},
	}...)
}

// webhookRoutes are the inbound webhook credentials' routes: provider tokens and keys, the SMS
// provider secrets, sending numbers and stop words, and the test deliveries.
func (h *handler) webhookRoutes() []route {
	return []route{
		{get, web.PathWebhooks, tenantData(permWebhooksRead), signedIn, h.webhooks},
		{post, web.PathMailchimpTokens, tenantData(permWebhooksWrite), signedIn, h.tokenIssue},
		{post, web.PathMailchimpTokens + "/:id/revoke", tenantData(permWebhooksWrite), signedIn, h.tokenRevoke},
		{post, web.PathSendGridKey, tenantData(permWebhooksWrite), signedIn, h.sendGridKeySave},
		{post, web.PathSendGridKeyClear, tenantData(permWebhooksWrite), signedIn, h.sendGridKeyClear},
		{post, web.PathSMSSecrets + "/:provider", tenantData(permWebhooksWrite), signedIn, h.smsSecretSave},
		{post, web.PathSMSNumbers, tenantData(permWebhooksWrite), signedIn, h.smsNumberAdd},
		{post, web.PathSMSNumberRemove, tenantData(permWebhooksWrite), signedIn, h.smsNumberRemove},
		{post, web.PathSMSStopWords, tenantData(permWebhooksWrite), signedIn, h.smsStopWordsSave},
		{post, web.PathWebhookTests + "/:provider", tenantData(permWebhooksWrite), signedIn, h.webhookTest},
		{post, web.PathMailServer, tenantData(permWebhooksWrite), signedIn, h.mailServerSave},
		{post, web.PathMailTest, tenantData(permWebhooksWrite), signedIn, h.mailTest},
	}
}

// mount registers the table on the app and remembers each GET route's access for the
// navigation.
func (h *handler) mount(app *fiber.App, table []route) {
	h.navAccess = map[string]access{}
	for _, r := range table {
		if r.method == get && r.who == signedIn {
			h.navAccess[r.path] = r.access
		}
		app.Add(r.method, r.path, h.wrap(r))
	}
}

// wrap runs one route: security headers; the body's type of unsafe methods (before anything
// reads it); for signed-in routes the session, the CSRF check of unsafe methods (before
// anything else happens), the role check and the tenant; then the handler, whose errors go
// to the one error renderer. A user who must change the password sees that page only.
func (h *handler) wrap(r route) fiber.Handler {
	return func(c *fiber.Ctx) error {
		pageHeaders(c)
		if unsafe(c) && !formEncoded(c) {
			return h.notForm(c)
		}
		if r.who == public {
			if unsafe(c) && !h.validLoginCSRF(c) {
				return h.csrfRefused(c, nil)
			}
			return h.run(c, nil, r.h)
		}
		cl, ok, err := h.readSession(c)
		if err != nil {
			return h.run(c, nil, func(*fiber.Ctx, *session) error { return err })
		}
		if !ok {
			if unsafe(c) {
				return h.csrfRefused(c, nil)
			}
			return h.toLogin(c)
		}
		if unsafe(c) && !h.validSessionCSRF(cl.SessionID, submittedCSRF(c)) {
			return h.csrfRefused(c, nil)
		}
		s, err := h.loadSession(c, cl)
		if errors.Is(err, errSignedOut) {
			h.clearSession(c)
			return h.toLogin(c)
		}
		if err != nil {
			return h.run(c, nil, func(*fiber.Ctx, *session) error { return err })
		}
		h.renew(c, s)
		if s.Staff.MustChangePassword && r.path != web.PathPassword && r.path != web.PathLogout {
			return c.Redirect(web.PathPassword, fiber.StatusSeeOther)
		}
		if r.who == signedIn && !h.may(s, r.access) {
			return h.forbidden(c, s)
		}
		if r.tenant && s.TenantID == "" {
			return h.run(c, s, h.tenantPrompt)
		}
		return h.run(c, s, r.h)
	}
}

// run calls a handler and renders its error, if any; the app's JSON error handler never
// sees an admin error.
func (h *handler) run(c *fiber.Ctx, s *session, fn pageFunc) error {
	if err := fn(c, s); err != nil {
		return h.fail(c, s, err)
	}
	return nil
}

// formEncoded reports whether a request's body is a URL-encoded form, or empty: the only
// bodies the admin reads, so that nothing ever parses a multipart body.
func formEncoded(c *fiber.Ctx) bool {
	if c.Request().Header.ContentLength() == 0 {
		return true
	}
	mt, _, _ := strings.Cut(c.Get(fiber.HeaderContentType), ";")
	return strings.EqualFold(strings.TrimSpace(mt), fiber.MIMEApplicationForm)
}

// notForm answers 415 to a post whose body is not a URL-encoded form.
func (h *handler) notForm(c *fiber.Ctx) error {
	p := web.ErrorPage{Layout: h.layout(c, nil, "Not a form", ""), Status: fiber.StatusUnsupportedMediaType,
		Message: "Send the form URL-encoded (application/x-www-form-urlencoded).", RequestID: requestID(c)}
	return h.render(c, fiber.StatusUnsupportedMediaType, web.Error(p))
}

func unsafe(c *fiber.Ctx) bool {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return false
	}
	return true
}

// toLogin sends a signed-out visitor to the sign-in page (htmx follows HX-Redirect).
func (h *handler) toLogin(c *fiber.Ctx) error {
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", web.PathLogin)
		return c.SendStatus(fiber.StatusUnauthorized)
	}
	return c.Redirect(web.PathLogin, fiber.StatusSeeOther)
}

// pageHeaders keeps admin pages (personal data, one-time secrets) out of caches and frames,
// and allows scripts and styles from this origin only.
func pageHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
}
