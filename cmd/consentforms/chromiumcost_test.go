package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestChromiumLoadCost measures the CPU Chromium spends on one load of the dashboard, by
// process (browser, renderer, GPU, network, the WebUI of the browser's own interface) and
// logs it. It is a measurement, not a check: it runs when asked,
// CONSENTFORMS_MEASURE=1 go test ./cmd/consentforms -run TestChromiumLoadCost -v.
// It chose the features the test browser runs without (chromiumFeaturesOff).
func TestChromiumLoadCost(t *testing.T) {
	if os.Getenv("CONSENTFORMS_MEASURE") == "" {
		t.Skip("a measurement: set CONSENTFORMS_MEASURE=1")
	}
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	u.open("/admin/")
	const loads = 60
	before := chromiumCPU(t)
	for range loads {
		u.open("/admin/")
	}
	after := chromiumCPU(t)
	var total float64
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range after {
			if !yield(k) {
				return
			}
		}
	}) {
		d := after[kind] - before[kind]
		total += d
		t.Logf("%-40s %6.1f ms per load", kind, 1000*d/loads)
	}
	t.Logf("%-40s %6.1f ms per load", "all of Chromium", 1000*total/loads)
}

// chromiumCPU is the CPU time (user and system, in seconds) of Chromium's processes, by the
// kind of process its command line names (--type, --utility-sub-type, --top-chrome-webui).
func chromiumCPU(t *testing.T) map[string]float64 {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	out := map[string]float64{}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		end := strings.LastIndexByte(string(stat), ')')
		if end < 0 || !strings.Contains(string(stat[:end]), "chrom") {
			continue
		}
		f := strings.Fields(string(stat[end+2:]))
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		kind := "browser"
		// Chromium rewrites its children's command lines into one string, spaces between.
		for _, arg := range strings.Fields(strings.ReplaceAll(string(cmdline), "\x00", " ")) {
			switch {
			case strings.HasPrefix(arg, "--type="):
				kind = strings.TrimPrefix(arg, "--type=")
			case strings.HasPrefix(arg, "--utility-sub-type="):
				kind += " " + strings.TrimPrefix(arg, "--utility-sub-type=")
			case arg == "--top-chrome-webui":
				kind += " (browser interface)"
			}
		}
		out[kind] += float64(utime+stime) / 100 // clock ticks: 100 a second on Linux
	}
	return out
}
