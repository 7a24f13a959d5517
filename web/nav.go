package web

// The navigation keys; each entry renders with data-testid="nav-<key>".
const (
	NavDashboard   = "dashboard"
	NavForms       = "forms"
	NavKeys        = "keys"
	NavWebhooks    = "webhooks"
	NavSubmissions = "submissions"
	NavAnonymise   = "anonymise"
	NavUnsubscribe = "unsubscribe"
	NavAudit       = "audit"
	NavTenants     = "tenants"
	NavStaff       = "staff"
	NavExpiring    = "expiring"
	NavRequests    = "requests"
)

// NavCatalogue returns every navigation entry of the admin UI in display order, none active.
func NavCatalogue() []NavItem {
	return []NavItem{
		{Key: NavDashboard, Label: "Dashboard", Href: PathDashboard},
		{Key: NavTenants, Label: "Tenants", Href: PathTenants},
		{Key: NavForms, Label: "Forms", Href: PathForms},
		{Key: NavSubmissions, Label: "Submissions", Href: PathSubmissions},
		{Key: NavAnonymise, Label: "Anonymise", Href: PathAnonymise},
		{Key: NavUnsubscribe, Label: "Unsubscribe", Href: PathUnsubscribe},
		{Key: NavRequests, Label: "Requests", Href: PathRequests},
		{Key: NavExpiring, Label: "Re-permission", Href: PathExpiring},
		{Key: NavKeys, Label: "API keys", Href: PathKeys},
		{Key: NavWebhooks, Label: "Webhooks", Href: PathWebhooks},
		{Key: NavStaff, Label: "Staff", Href: PathStaff},
		{Key: NavAudit, Label: "Audit log", Href: PathAudit},
	}
}

// BuildNav returns the catalogue entries for which allowed(key) holds, the one named active
// marked as such. The handler decides what is allowed (typically from the casbin policy).
func BuildNav(active string, allowed func(key string) bool) []NavItem {
	all := NavCatalogue()
	nav := make([]NavItem, 0, len(all))
	for _, n := range all {
		if allowed != nil && !allowed(n.Key) {
			continue
		}
		n.Active = n.Key == active
		nav = append(nav, n)
	}
	return nav
}
