package policies

import "testing"

func TestScopes(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		scopes   []string
		obj, act string
		want     bool
	}{
		{[]string{"submissions:write"}, "api:submissions", "write", true},
		{[]string{"submissions:write"}, "api:submissions", "read", false},
		{[]string{"submissions:read"}, "api:submissions", "read", true},
		{[]string{"submissions:read"}, "api:gdpr", "anonymise", false},
		{[]string{"gdpr:anonymise"}, "api:gdpr", "anonymise", true},
		{[]string{"unsubscribe:write"}, "api:unsubscribe", "write", true},
		{[]string{"records:write"}, "api:records", "write", true},
		{[]string{"records:write"}, "api:submissions", "write", false},
		{[]string{"all"}, "api:gdpr", "anonymise", true},
		{[]string{"gdpr:export"}, "api:gdpr", "export", true},
		{[]string{"gdpr:export"}, "api:gdpr", "anonymise", false},
		{[]string{"gdpr:anonymise"}, "api:gdpr", "export", false},
		{[]string{"all"}, "api:gdpr", "export", true},
		{[]string{"all"}, "api:records", "write", true},
		{[]string{"all"}, "admin:tenants", "write", false},
		{nil, "api:submissions", "write", false},
		{[]string{"bogus"}, "api:submissions", "write", false},
		{[]string{"submissions:read", "unsubscribe:write"}, "api:unsubscribe", "write", true},
	}
	for _, c := range cases {
		if got := e.ScopesAllow(c.scopes, c.obj, c.act); got != c.want {
			t.Errorf("ScopesAllow(%v, %s, %s) = %v, want %v", c.scopes, c.obj, c.act, got, c.want)
		}
	}
}

func TestRoles(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		role, obj, act string
		want           bool
	}{
		{"viewer", "admin:submissions", "read", true},
		{"viewer", "admin:contact", "read", false},
		{"viewer", "admin:gdpr", "anonymise", false},
		{"viewer", "admin:forms", "write", false},
		{"support", "admin:gdpr", "anonymise", true},
		{"support", "admin:gdpr", "export", true},
		{"viewer", "admin:gdpr", "export", false},
		{"tenant_admin", "admin:gdpr", "export", true},
		{"support", "admin:unsubscribe", "write", true},
		{"support", "admin:keys", "write", false},
		{"tenant_admin", "admin:keys", "write", true},
		{"tenant_admin", "admin:gdpr", "anonymise", true},
		{"tenant_admin", "admin:tenants", "write", false},
		{"platform_admin", "admin:tenants", "write", true},
		{"platform_admin", "admin:dashboard", "read", true},
		{"nobody", "admin:dashboard", "read", false},
		{"platform_admin", "admin:tenants", "switch", true},
		{"tenant_admin", "admin:tenants", "switch", false},
		{"tenant_admin", "admin:tenants", "read", false},
		{"tenant_admin", "admin:staff", "write", true},
		{"support", "admin:staff", "read", false},
		{"support", "admin:audit", "export", true},
		{"viewer", "admin:audit", "export", false},
		{"viewer", "admin:keys", "read", false},
		{"viewer", "admin:unsubscribe", "write", false},
		{"viewer", "admin:webhooks", "read", false},
		{"support", "admin:contact", "read", true},
		{"tenant_admin", "admin:webhooks", "write", true},
	}
	for _, c := range cases {
		if got := e.RoleAllows(c.role, c.obj, c.act); got != c.want {
			t.Errorf("RoleAllows(%s, %s, %s) = %v, want %v", c.role, c.obj, c.act, got, c.want)
		}
	}
}
