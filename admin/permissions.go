package admin

// The permissions of the staff roles (policies/policy.csv), each a casbin object and action
// named once: the route table requires them, and pages check them to show what the role may
// do (a button, a column, contact data).
var (
	permAuditExport      = access{obj: "admin:audit", act: "export"}
	permAuditRead        = access{obj: "admin:audit", act: "read"}
	permBulkApprove      = access{obj: "admin:bulk", act: "approve"}
	permBulkRequest      = access{obj: "admin:bulk", act: "request"}
	permContactRead      = access{obj: "admin:contact", act: "read"}
	permDashboardRead    = access{obj: "admin:dashboard", act: "read"}
	permEndpointsRead    = access{obj: "admin:endpoints", act: "read"}
	permEndpointsWrite   = access{obj: "admin:endpoints", act: "write"}
	permFormsRead        = access{obj: "admin:forms", act: "read"}
	permFormsWrite       = access{obj: "admin:forms", act: "write"}
	permGDPRAnonymise    = access{obj: "admin:gdpr", act: "anonymise"}
	permGDPRExport       = access{obj: "admin:gdpr", act: "export"}
	permKeysRead         = access{obj: "admin:keys", act: "read"}
	permKeysWrite        = access{obj: "admin:keys", act: "write"}
	permStaffRead        = access{obj: "admin:staff", act: "read"}
	permStaffWrite       = access{obj: "admin:staff", act: "write"}
	permSubmissionsRead  = access{obj: "admin:submissions", act: "read"}
	permTenantsRead      = access{obj: "admin:tenants", act: "read"}
	permTenantsSwitch    = access{obj: "admin:tenants", act: "switch"}
	permTenantsWrite     = access{obj: "admin:tenants", act: "write"}
	permUnsubscribeWrite = access{obj: "admin:unsubscribe", act: "write"}
	permWebhooksRead     = access{obj: "admin:webhooks", act: "read"}
	permWebhooksWrite    = access{obj: "admin:webhooks", act: "write"}
)

// tenantData marks a route's permission as one that works on one tenant's data: a platform
// admin who has chosen no tenant is asked to choose one first.
func tenantData(p access) access {
	p.tenant = true
	return p
}

// may reports whether the signed-in user's role has permission p.
func (h *handler) may(s *session, p access) bool {
	return h.Enforcer.RoleAllows(s.Staff.Role, p.obj, p.act)
}
