package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependenciesPointInward: the domain imports nothing internal but itself; api and admin
// reach storage only through the domain's interfaces; only cmd sees everything (STYLE.md).
func TestDependenciesPointInward(t *testing.T) {
	const mod = "github.com/consentforms/consentforms/"
	forbidden := map[string][]string{
		"./tenants/...": {"api", "admin", "web", "mongo", "policies", "cmd"},
		"./api":         {"admin", "web", "mongo", "cmd"},
		"./admin":       {"api", "mongo", "cmd"},
		"./web":         {"tenants", "api", "admin", "mongo", "policies", "cmd"},
		"./mongo":       {"api", "admin", "web", "policies", "cmd"},
		"./policies":    {"tenants", "api", "admin", "web", "mongo", "cmd"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+strings.TrimPrefix(pkg, "./")).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.HasPrefix(dep, mod+b+"/") || dep == mod+b {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
