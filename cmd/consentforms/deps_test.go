package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedBinaryLinksNoTestStore: the MongoDB stand-in the tests run (FerretDB) is a test
// dependency only; the binary a user runs does not contain it.
func TestShippedBinaryLinksNoTestStore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/consentforms/consentforms/cmd/consentforms").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "FerretDB") {
			t.Errorf("the binary depends on %s", dep)
		}
	}
}

// TestDependenciesPointInward: the domain imports nothing internal but itself; api and admin
// reach storage only through the domain's interfaces; only cmd sees everything (README.md, Architecture).
func TestDependenciesPointInward(t *testing.T) {
	const mod = "github.com/consentforms/consentforms/"
	forbidden := map[string][]string{
		"./tenants/...": {"api", "admin", "web", "mongo", "sqlite", "policies", "batch", "dispatch", "cmd"},
		"./api":         {"admin", "web", "pages", "mongo", "sqlite", "cmd"},
		"./admin":       {"api", "pages", "mongo", "sqlite", "cmd"},
		"./web":         {"tenants/", "api", "admin", "mongo", "sqlite", "policies", "cmd"},
		"./mongo":       {"api", "admin", "web", "sqlite", "policies", "cmd"},
		"./sqlite":      {"api", "admin", "web", "mongo", "policies", "cmd"},
		"./policies":    {"tenants", "api", "admin", "web", "mongo", "sqlite", "cmd"},
		"./requestid":   {"tenants", "api", "admin", "web", "mongo", "sqlite", "policies", "cmd"},
		"./batch":       {"api", "admin", "web", "mongo", "sqlite", "policies", "dispatch", "cmd"},
		"./dispatch":    {"api", "admin", "web", "mongo", "sqlite", "policies", "batch", "cmd"},
		"./clientaddr":  {"tenants", "api", "admin", "web", "mongo", "sqlite", "policies", "cmd"},
		"./pages":       {"api", "admin", "mongo", "sqlite", "policies", "cmd"},
	}
	// "tenants/" (web's row) forbids the domain's sub-packages but not the root package and
	// what it imports: the view reads the names of things (scopes, statuses, kinds, consents)
	// from the domain, and nothing else.
	root, err := exec.Command("go", "list", "-deps", mod+"tenants").Output()
	if err != nil {
		t.Fatalf("go list tenants: %v", err)
	}
	domainRoot := map[string]bool{}
	for _, dep := range strings.Fields(string(root)) {
		domainRoot[dep] = true
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+strings.TrimPrefix(pkg, "./")).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.HasPrefix(dep, mod+b+"/") || dep == mod+b || strings.HasSuffix(b, "/") && strings.HasPrefix(dep, mod+b) && !domainRoot[dep] {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// TestDomainImportsNoFrameworkOrDriver: the domain is plain Go over plain structs; neither
// Fiber (nor its fasthttp), nor a database driver, nor templ reaches tenants/... (README.md,
// Architecture).
func TestDomainImportsNoFrameworkOrDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/consentforms/consentforms/tenants/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{"github.com/gofiber/", "github.com/valyala/fasthttp", "go.mongodb.org/mongo-driver",
		"modernc.org/sqlite", "github.com/a-h/templ"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("tenants/... depends on %s", dep)
			}
		}
	}
}
