package admin

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// values lists the values of options, in order.
func values(options []web.Option) []string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.Value
	}
	return out
}

func asStrings[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// TestWebOptionsMatchDomain: package web may not import the domain (TestDependenciesPointInward),
// so it keeps its own copies of the scopes, consent statuses, field types and consent names that
// its forms and filters offer; this test keeps the copies equal to the domain's, in order.
func TestWebOptionsMatchDomain(t *testing.T) {
	for _, c := range []struct {
		name      string
		web, want []string
	}{
		{"scopes", values(web.ScopeOptions()), tenants.AllScopes()},
		{"consent statuses", values(web.StatusOptions()), asStrings(tenants.ConsentStatuses())},
		{"field types", values(web.FieldTypeOptions()), tenants.FieldTypes()},
		{"consent names", values(web.ConsentOptions()), asStrings(tenants.ConsentNames())},
	} {
		if !slices.Equal(c.web, c.want) {
			t.Errorf("web's %s %v, the domain's %v", c.name, c.web, c.want)
		}
	}
}

// TestEveryScopeHasAPolicy: a scope without a casbin row would be accepted on a key and allow
// nothing (docs/API.md §1.3).
func TestEveryScopeHasAPolicy(t *testing.T) {
	b, err := os.ReadFile("../policies/policy.csv")
	if err != nil {
		t.Fatal(err)
	}
	subjects := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) >= 3 && (strings.TrimSpace(fields[0]) == "p" || strings.TrimSpace(fields[0]) == "g") {
			subjects[strings.TrimSpace(fields[1])] = true
		}
	}
	for _, s := range tenants.AllScopes() {
		if !subjects["scope:"+s] {
			t.Errorf("scope %s has no row in policies/policy.csv", s)
		}
	}
}
