package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// cspRecorder records the page's Content-Security-Policy violations in window.__csp, from
// before any of the page's own scripts run.
func cspRecorder() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener('securitypolicyviolation',
				e => window.__csp.push(e.effectiveDirective + ' ' + e.blockedURI));`})
		return chromedp.Void{}, err
	}
}

// TestAPIReference: GET /api/docs opens in a real browser as a reference of the API that
// lists every path of the OpenAPI document; it loads nothing from another origin, breaks no
// rule of its Content-Security-Policy but the one refusing Redoc's CDN logo, and its script
// comes from a content-hashed URL cached for a year.
func TestAPIReference(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t)

	r := s.do("GET", "/api/docs", "", nil)
	csp := r.Header.Get("Content-Security-Policy")
	if r.Status != 200 || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("GET /api/docs: %d, CSP %q", r.Status, csp)
	}
	script := regexp.MustCompile(`src="(/api/docs/redoc\.[0-9a-f]{12}\.js)"`).FindSubmatch(r.Body)
	if script == nil {
		t.Fatalf("no hashed script in %s", r.Body)
	}
	js := s.do("GET", string(script[1]), "", nil)
	if js.Status != 200 || js.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		!strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("script: %d %v", js.Status, js.Header)
	}
	if other := s.do("GET", "/api/docs/redoc.000000000000.js", "", nil); other.Status != 404 {
		t.Errorf("an unknown asset name: %d", other.Status)
	}

	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(s.do("GET", "/api/v1/openapi.json", "", nil).Body, &doc); err != nil || len(doc.Paths) == 0 {
		t.Fatalf("openapi.json: %v", err)
	}

	u := newAdminUI(t, s)
	u.do(cspRecorder())
	if status := u.open("/api/docs"); status != 200 {
		t.Fatalf("browser: /api/docs %d", status)
	}
	u.do(waitJS(`document.querySelectorAll('[data-section-id^="operation/"]').length > 0`))
	text, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`document.body.textContent`))
	if err != nil {
		t.Fatal(err)
	}
	for path := range doc.Paths {
		if !strings.Contains(text, path) {
			t.Errorf("the reference page does not list %s", path)
		}
	}
	// The first screen (the whole page is tens of thousands of pixels long).
	png, err := chromedp.Run(u.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	saveShot(t, "api-reference", png)

	const logo = "https://cdn.redoc.ly/redoc/logo-mini.svg" // Redoc's footer logo: refused, it hides itself
	violations, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	for _, v := range violations {
		if v != "img-src "+logo {
			t.Errorf("CSP violation: %s", v)
		}
		refused[strings.TrimPrefix(v, "img-src ")] = true
	}
	resources, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range resources {
		if !strings.HasPrefix(res, s.URL+"/") && !strings.HasPrefix(res, "blob:") && !refused[res] {
			t.Errorf("the page loaded %s from elsewhere", res)
		}
	}
}

// saveShot writes a screenshot under CONSENTFORMS_SCREENSHOTS (or the temp dir), as the
// admin UI's browser tests do.
func saveShot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := screenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
