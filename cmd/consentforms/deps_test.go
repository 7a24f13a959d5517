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

// TestFacesCallTheOneIntake: no face (the API, the person's pages, the admin UI) stores a
// record or orders the intake steps itself: each decodes, calls ops.Submit, and renders. A
// face that called the writer's ingest, parsed a record body by the intake rules, or stamped
// texts or double opt-in on its own would be a second intake that can drift from the first,
// as the hosted page once did (it skipped double opt-in and the texts).
func TestFacesCallTheOneIntake(t *testing.T) {
	out, err := exec.Command("git", "grep", "-n", "-E", `Writer\.Ingest\(|\.Ingest\(ctx|ParseRecord\(|StampTexts\(|DoubleOptIn\(|ingestDraft`,
		"--", "../../api", "../../pages", "../../admin", ":(top,exclude,glob)**/*_test.go").CombinedOutput()
	// git grep exits 0 when it finds a line, 1 when it finds none.
	if err == nil || len(out) > 0 {
		t.Errorf("a face runs intake steps of its own (every way in goes through ops.Submit):\n%s", out)
	}
	uses, err := exec.Command("git", "grep", "-l", `\.Submit(`, "--", "../../api", "../../pages", ":(top,exclude,glob)**/*_test.go").Output()
	if err != nil || !strings.Contains(string(uses), "api/intake.go") || !strings.Contains(string(uses), "pages/form.go") {
		t.Errorf("the API and the hosted page should both call ops.Submit; found in: %s (%v)", uses, err)
	}
}
