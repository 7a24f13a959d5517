package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The admin UI driven in a real browser: Debian's Chromium through chromedp, against the
// real server on a fresh embedded store.

const adminChromium = "/usr/bin/chromium"

// adminUI is one browser tab on a test server.
type adminUI struct {
	t   *testing.T
	s   *testServer
	ctx context.Context
}

// chromium is the one headless Chromium of this test process, started by the first browser
// test (startChromium) and closed by TestMain (stopChromium). Each test gets a tab of its own
// in a browser context of its own (newAdminUI): cookies, storage and cache are the test's
// alone, as in a fresh profile, while the browser's start (about a second of CPU) is paid
// once per package instead of once per test.
var chromium struct {
	once   sync.Once
	ctx    context.Context
	err    error
	dir    string
	cancel func()
}

// chromiumSwitches are the test browser's switches: the project's headless flags first.
// Chromium 156 runs the browser's own interface in headless mode too: every window (one per
// test's browser context) preloads two WebUI omnibox popups, each a renderer that redraws on
// every navigation of the tab. They made up a fifth of Chromium's CPU per page load and most
// of a new tab's cost (chromiumFeaturesOff turns them off). The other switches and features
// stop background work no test looks at (translation, optimisation hints, casting,
// autofill's server, extensions, phishing checks). The SQLite pass's browser tests: 118–123 s
// of CPU → 73–85 s, alternated (TestChromiumLoadCost measures one page load by process).
var chromiumSwitches = []string{
	"headless", "no-sandbox", "disable-gpu", "disable-background-networking", "disable-component-update",
	"disable-sync", "no-first-run",
	"disable-extensions", "disable-default-apps", "disable-client-side-phishing-detection",
	"safebrowsing-disable-auto-update", "disable-hang-monitor", "disable-ipc-flooding-protection",
	"disable-dev-shm-usage",
}

// chromiumFeaturesOff are the Chromium features the test browser runs without (startChromium).
var chromiumFeaturesOff = []string{
	"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup",
	"Translate", "OptimizationHints", "MediaRouter", "AutofillServerCommunication", "InterestFeedContentSuggestions",
}

func startChromium() (context.Context, error) {
	chromium.once.Do(func() {
		dir, err := os.MkdirTemp("", "chromium")
		if err != nil {
			chromium.err = err
			return
		}
		chromium.dir = dir
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(adminChromium),
			chromedp.Flag("disable-features", strings.Join(chromiumFeaturesOff, ",")),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1280, 900),
		}
		for _, name := range chromiumSwitches {
			opts = append(opts, chromedp.Flag(name, true))
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		chromium.cancel = func() { cancelBrowser(); cancelAlloc(); _ = os.RemoveAll(dir) }
		chromium.ctx = bctx
		chromium.err = chromedp.Do(bctx) // starts the browser, with no timeout
	})
	return chromium.ctx, chromium.err
}

// stopChromium closes the shared browser, if a test started it.
func stopChromium() {
	if chromium.cancel != nil {
		chromium.cancel()
	}
}

// newAdminUI opens a tab in a browser context of its own in the shared headless Chromium.
// Without Chromium the test is skipped, except in CI, where it must be there.
func newAdminUI(t *testing.T, s *testServer) *adminUI {
	t.Helper()
	shared, err := startChromium()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	bctx, cancelTab := chromedp.NewContext(shared, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	if err := chromedp.Do(bctx); err != nil { // opens the tab
		t.Fatalf("open a chromium tab: %v", err)
	}
	// A bound on a hung browser, not on the journey: the browser tests run in parallel with
	// the rest of the package, which on 2 cores can take a long journey past a minute.
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(cancel)
	u := &adminUI{t: t, s: s, ctx: ctx}
	// The page a failed test ended on is saved even when screenshots were not asked for.
	t.Cleanup(func() {
		if t.Failed() {
			u.save(screenshotDir(), "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
		}
	})
	return u
}

// requireChromium skips a browser test where Chromium is missing, but not in CI.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(adminChromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI must install chromium", adminChromium)
		}
		t.Skipf("%s is missing", adminChromium)
	}
}

// browserSideOnly runs a browser test on the embedded store only. Such a test checks what the
// browser makes of the admin UI (layout at two window sizes, security headers and cookies, the
// role-dependent navigation, the password form, the API reference page) or of the hosted form's
// script (the challenge solved in the page, the errors shown beside their fields), which the
// store behind the server does not change; the store paths it passes through have tests of
// their own that run on both stores (TestFirstAdminMustChangePassword, TestStaffDisabledAndPasswordChanged,
// the role tests of the admin package, TestHostedFormWithoutScript, TestPublishableKeyChallenge).
// The MongoDB pass runs every browser test whose pages show what the store reads: dashboard,
// lists and paging, person pages, bulk erasure, the form editor, webhooks, the audit log. A
// browser journey costs seconds of CPU on 2 cores: the first five made up a third of the
// MongoDB pass's browser time; the hosted form's test solves its challenge in the page.
func browserSideOnly(t *testing.T) {
	t.Helper()
	if mongoURI != "" {
		t.Skip("the browser side of the admin UI: runs on the embedded store (browserSideOnly)")
	}
}

// sendGridTestKey is a fresh ECDSA P-256 public key as SendGrid shows it: base64 DER.
func sendGridTestKey(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(der)
}

// waitJS waits until the JavaScript expression is true, checking every 25 ms. chromedp's Poll
// checks on every animation frame by default, which has Chromium render 60 frames a second
// for as long as the wait lasts (a bulk erasure's progress: seconds).
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(25*time.Millisecond))
}

func sel(testid string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + testid + `"]`) }

func (u *adminUI) do(steps ...chromedp.Action[chromedp.Void]) {
	u.t.Helper()
	if err := chromedp.Do(u.ctx, steps...); err != nil {
		u.t.Fatalf("browser: %v\npage text:\n%s", err, u.pageText())
	}
}

// pageText is the visible text of the page, for failure messages.
func (u *adminUI) pageText() string {
	ctx, cancel := context.WithTimeout(u.ctx, 2*time.Second)
	defer cancel()
	txt, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return txt
}

// open loads an admin path and returns the HTTP status.
func (u *adminUI) open(path string) int64 {
	u.t.Helper()
	resp, err := chromedp.Run(u.ctx, chromedp.NavigateResponse(u.s.URL+path))
	if err != nil {
		u.t.Fatalf("open %s: %v", path, err)
	}
	return resp.Status
}

// submit clicks a button (or link) that loads a page and returns that page's HTTP status.
func (u *adminUI) submit(testid string) int64 {
	u.t.Helper()
	resp, err := chromedp.RunResponse(u.ctx, chromedp.Click(sel(testid)))
	if err != nil {
		u.t.Fatalf("click %s: %v\npage text:\n%s", testid, err, u.pageText())
	}
	if resp == nil {
		u.t.Fatalf("click %s loaded no page", testid)
	}
	return resp.Status
}

// fill enters value into the input with data-testid "input-<id>" as the browser's input
// pipeline does for pasted or dictated text (Input.insertText: focus, then beforeinput and
// input events with the whole value), not a key press per character: chromedp's SendKeys
// costs three protocol round trips and a frame per character, which made typing about a
// fifth of the browser's CPU in the suite. What the server receives is the same; the tests
// that depend on key events (the tenant search's typing, the hosted form) still send keys.
func (u *adminUI) fill(id, value string) {
	u.t.Helper()
	clear := fmt.Sprintf(`document.querySelector('[data-testid="input-%s"]').value = ""`, id)
	u.do(chromedp.Evaluate[chromedp.Void](clear), chromedp.Focus(sel("input-"+id)), insertText(value))
}

// insertText inserts text at the focused element's caret.
func insertText(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

func (u *adminUI) text(testid string) string {
	u.t.Helper()
	txt, err := chromedp.Run(u.ctx, chromedp.Text(sel(testid)))
	if err != nil {
		u.t.Fatalf("text of %s: %v\npage text:\n%s", testid, err, u.pageText())
	}
	return strings.TrimSpace(txt)
}

// attr is an attribute of the first element with the data-testid.
func (u *adminUI) attr(testid, name string) string {
	u.t.Helper()
	v, err := chromedp.Run(u.ctx, chromedp.AttributeValue(sel(testid), name))
	if err != nil || !v.Exists {
		u.t.Fatalf("attribute %s of %s: %v", name, testid, err)
	}
	return v.Value
}

// visible waits until the element is shown.
func (u *adminUI) visible(testid string) {
	u.t.Helper()
	u.do(chromedp.WaitVisible(sel(testid)))
}

// present reports whether an element is in the page now.
func (u *adminUI) present(testid string) bool {
	u.t.Helper()
	n, err := chromedp.Run(u.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('[data-testid=%q]').length`, testid)))
	if err != nil {
		u.t.Fatal(err)
	}
	return n > 0
}

// fetch runs fetch() in the page (same origin, the browser's cookies) and returns the status
// and body. form, when set, is posted url-encoded.
func (u *adminUI) fetch(method, path string, form map[string]string) (int, string) {
	u.t.Helper()
	init := fmt.Sprintf(`{method: %q, credentials: "same-origin"}`, method)
	if form != nil {
		var parts []string
		for k, v := range form {
			parts = append(parts, fmt.Sprintf("[%q, %q]", k, v))
		}
		init = fmt.Sprintf(`{method: %q, credentials: "same-origin", body: new URLSearchParams([%s])}`, method, strings.Join(parts, ","))
	}
	type result struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	js := fmt.Sprintf(`fetch(%q, %s).then(async r => ({status: r.status, body: await r.text()}))`, path, init)
	r, err := chromedp.Run(u.ctx, chromedp.Evaluate[result](js, chromedp.EvalAwaitPromise))
	if err != nil {
		u.t.Fatalf("fetch %s %s: %v", method, path, err)
	}
	return r.Status, r.Body
}

// shot saves a full-page screenshot under CONSENTFORMS_SCREENSHOTS (or the temp dir).
func (u *adminUI) shot(name string) {
	u.t.Helper()
	// A full-page PNG per page costs the suite seconds: taken only when asked for.
	if dir := os.Getenv("CONSENTFORMS_SCREENSHOTS"); dir != "" {
		u.save(dir, name)
	}
}

// screenshotDir is where screenshots go: $CONSENTFORMS_SCREENSHOTS, else the temp dir.
func screenshotDir() string {
	if dir := os.Getenv("CONSENTFORMS_SCREENSHOTS"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "consentforms-screenshots")
}

// save writes a screenshot of the whole page to dir/name.png.
func (u *adminUI) save(dir, name string) {
	u.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		u.t.Fatal(err)
	}
	png, err := chromedp.Run(u.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		u.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		u.t.Fatal(err)
	}
}

// signIn signs in through the login form and returns the status of the page it lands on.
func (u *adminUI) signIn(email, password string) int64 {
	u.t.Helper()
	u.open("/admin/login")
	u.fill("email", email)
	u.fill("password", password)
	return u.submit("login-submit")
}

// signedIn signs in as a test that is not about signing in needs to: through the same login
// form over HTTP (adminClient: the page, its CSRF token, the post), then the browser takes
// the session cookie the server set and opens the page the form leads to, whose status it
// returns. The browser's own sign-in (signIn) is what TestAdminBrowserJourney, the security,
// password and layout tests use; this one spares each of the others the login page's load
// and the typing (about a third of a second of the browser's CPU each). A refused sign-in
// is left to the form, so that the page shows what the browser would.
func (u *adminUI) signedIn(email, password string) int64 {
	u.t.Helper()
	a := newAdminClient(u.t, u.s)
	st, loc := a.signIn(email, password)
	if st != http.StatusSeeOther {
		return u.signIn(email, password)
	}
	base, _ := url.Parse(u.s.URL + "/admin/")
	httpOnly := true
	for _, c := range a.http.Jar.Cookies(base) {
		if _, err := chromedp.Call(u.ctx, network.SetCookie, network.SetCookieParams{Name: c.Name, Value: c.Value,
			URL: base.String(), Path: "/admin", HTTPOnly: &httpOnly, SameSite: network.CookieSameSiteLax}); err != nil {
			u.t.Fatalf("hand the cookie %s to the browser: %v", c.Name, err)
		}
	}
	return u.open(loc)
}

func wantStatus(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d", what, got, want)
	}
}

// TestAdminBrowserJourney: a platform admin creates a tenant, works on it, creates a form,
// issues a key that the API accepts, finds the submission, erases the person and sees the
// erasure in the audit log.
func TestAdminBrowserJourney(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	u := newAdminUI(t, s)

	u.open("/admin/login")
	u.shot("01-login")
	wantStatus(t, "sign in", u.signIn("root@example.com", "root-password-1"), 200)
	u.visible("tenant-prompt") // no tenant chosen yet

	wantStatus(t, "tenants", u.submit("nav-tenants"), 200)
	u.fill("name", "Acme Campaigns")
	u.fill("rate_limit", "50")
	wantStatus(t, "create tenant", u.submit("tenant-create-submit"), 200)
	u.visible("flash-success")
	tenantID := u.text("tenant-id")
	u.shot("02-tenants")

	wantStatus(t, "choose tenant", u.submit("nav-tenant"), 200)
	u.do(chromedp.SetValue(sel("input-tenant"), tenantID))
	u.shot("02b-choose-tenant")
	wantStatus(t, "work on tenant", u.submit("tenant-choose-submit"), 200)
	u.visible("dashboard-records")
	if got := u.text("user-tenant"); got != "Acme Campaigns" {
		t.Fatalf("header tenant %q", got)
	}
	u.shot("03-dashboard")

	// A form with a personal custom field.
	wantStatus(t, "forms", u.submit("nav-forms"), 200)
	u.visible("forms-empty")
	wantStatus(t, "new form", u.submit("form-new"), 200)
	u.fill("form_id", "newsletter")
	u.fill("name", "Newsletter sign-up")
	u.fill("field-0-name", "favourite_colour")
	u.fill("field-1-name", "birthday")
	u.do(chromedp.SetValue(sel("input-field-1-type"), "date"), chromedp.Click(sel("input-field-1-personal")))
	wantStatus(t, "create form", u.submit("form-save"), 200)
	u.visible("flash-success")
	if url := u.text("webhook-url-sendgrid"); url != s.LinkBase+"/api/v1/sendgrid/unsubscribe?tenant="+tenantID {
		t.Errorf("sendgrid webhook URL %q", url)
	}
	u.shot("05-form-edit")
	wantStatus(t, "forms", u.submit("nav-forms"), 200)
	if got := u.text("form-link"); got != "newsletter" {
		t.Fatalf("forms list shows %q", got)
	}
	u.shot("04-forms")

	// An API key, shown once, that the API accepts.
	wantStatus(t, "keys", u.submit("nav-keys"), 200)
	u.fill("name", "Website")
	u.do(chromedp.Click(sel("input-scope-submissions-write")))
	u.shot("06-keys")
	wantStatus(t, "issue key", u.submit("key-issue-submit"), 200)
	plain := u.text("api-key-plaintext")
	u.shot("07-key-issued")
	r := s.do("POST", "/api/v1/forms/accept-submission", plain, map[string]any{
		"submission_id": "web-0001", "form_id": "newsletter", "email": "Jane.Doe@example.org",
		"phone_number": "+4915112345678", "first_name": "Jane", "last_name": "Doe",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d",
		"consent_to_general_contact_email": true, "favourite_colour": "green", "birthday": "1990-01-01",
	})
	if r.Status != 200 {
		t.Fatalf("accept-submission with the issued key: %d %s", r.Status, r.Body)
	}
	wantStatus(t, "keys", u.submit("keys-back"), 200)
	keyID := u.attr("key-row", "data-key-id")

	// The dashboard counts the submission and its consents, deadlines applied.
	wantStatus(t, "dashboard", u.submit("nav-dashboard"), 200)
	for testid, want := range map[string]string{"dashboard-count-formSubmissions": "1",
		"dashboard-consent-primaryPurpose-granted": "1", "dashboard-consent-generalContactPhone-not_granted": "1"} {
		if got := u.text(testid); got != want {
			t.Errorf("%s = %q, want %s", testid, got, want)
		}
	}

	// The submission: masked in the list, in full on the detail page for this role.
	wantStatus(t, "submissions", u.submit("nav-submissions"), 200)
	email := u.text("submission-email")
	if strings.Contains(strings.ToLower(email), "jane") || !strings.HasSuffix(email, "@e***.org") {
		t.Errorf("list shows e-mail %q, want it masked", email)
	}
	u.shot("08-submissions")
	wantStatus(t, "submission", u.submit("submission-link"), 200)
	if got := strings.ToLower(u.text("contact-email")); got != "jane.doe@example.org" {
		t.Errorf("detail shows e-mail %q", got)
	}
	if got := u.text("consent-primaryPurpose-status"); got != "Granted" {
		t.Errorf("primary purpose %q", got)
	}
	u.shot("09-submission")

	// A manual unsubscribe revokes general contact by e-mail.
	wantStatus(t, "unsubscribe", u.submit("nav-unsubscribe"), 200)
	u.fill("email", "jane.doe@EXAMPLE.org")
	wantStatus(t, "unsubscribe", u.submit("unsubscribe-submit"), 200)
	if got := u.text("unsubscribe-revoked-count"); got != "1" {
		t.Errorf("unsubscribe revoked %q", got)
	}
	u.shot("15-unsubscribe")
	u.open("/admin/submissions/web-0001")
	if got := u.text("consent-generalContactEmail-status"); got != "Revoked" {
		t.Errorf("general contact by e-mail after unsubscribe: %q", got)
	}

	// Erasure: preview, a wrong confirmation, the right one, the result.
	wantStatus(t, "anonymise", u.submit("nav-anonymise"), 200)
	u.fill("email", "JANE.DOE@example.org")
	wantStatus(t, "preview", u.submit("anonymise-search-submit"), 200)
	if got := u.text("anonymise-preview-count-formSubmissions"); got != "1" {
		t.Fatalf("preview counts %q form submissions", got)
	}
	u.shot("10-anonymise-preview")
	u.fill("confirm", "erase")
	wantStatus(t, "wrong word", u.submit("anonymise-confirm-submit"), 422)
	u.visible("error-confirm")
	u.fill("confirm", "ERASE")
	wantStatus(t, "erase", u.submit("anonymise-confirm-submit"), 200)
	if got := u.text("anonymise-result-count-formSubmissions"); got != "1" {
		t.Fatalf("result counts %q form submissions", got)
	}
	u.shot("11-anonymise-result")

	wantStatus(t, "audit", u.submit("nav-audit"), 200)
	// The filter swaps the results in place with htmx.
	u.do(chromedp.SetValue(sel("input-action"), "gdpr.anonymised"), chromedp.Click(sel("audit-filter-submit")),
		waitJS(`document.querySelectorAll('[data-testid="audit-row"]').length === 1`))
	if got := u.text("audit-action"); got != "Person erased" || u.attr("audit-action-label", "title") != "gdpr.anonymised" {
		t.Fatalf("audit shows %q", got)
	}
	if got, id := u.text("audit-actor"), u.attr("audit-actor", "data-actor-id"); got != "root@example.com" || !strings.HasPrefix(id, "staff:") {
		t.Errorf("erasure actor %q (%s), want the staff member's e-mail", got, id)
	}
	u.shot("12-audit")
	status, csv := u.fetch("GET", "/admin/audit/export.csv", nil)
	if status != 200 || !strings.Contains(csv, "gdpr.anonymised") || strings.Contains(strings.ToLower(csv), "example.org") {
		t.Errorf("audit CSV: %d\n%s", status, csv)
	}

	// Webhook credentials: a Mailchimp token the API accepts, a SendGrid key.
	wantStatus(t, "webhooks", u.submit("nav-webhooks"), 200)
	wantStatus(t, "issue token", u.submit("mailchimp-token-issue-submit"), 200)
	hook := u.text("mailchimp-token-url")
	if !strings.HasPrefix(hook, s.LinkBase+"/api/v1/mailchimp/unsubscribe?token=mct_") {
		t.Fatalf("mailchimp URL %q", hook)
	}
	u.shot("16-mailchimp-token")
	r = s.do("POST", strings.TrimPrefix(hook, s.LinkBase), "", "type=unsubscribe&data%5Bemail%5D=nobody%40example.org",
		"Content-Type: application/x-www-form-urlencoded")
	if r.Status != 200 {
		t.Errorf("mailchimp webhook with the issued token: %d %s", r.Status, r.Body)
	}
	wantStatus(t, "webhooks", u.submit("webhooks-back"), 200)
	u.fill("public_key", "not a key")
	wantStatus(t, "bad sendgrid key", u.submit("sendgrid-key-save"), 422)
	u.visible("error-public_key")
	u.fill("public_key", sendGridTestKey(t))
	wantStatus(t, "sendgrid key", u.submit("sendgrid-key-save"), 200)
	if got := u.text("flash-success"); !strings.Contains(got, "/api/v1/sendgrid/unsubscribe?tenant="+tenantID) {
		t.Errorf("sendgrid flash %q", got)
	}
	u.shot("17-webhooks")

	// Staff of the tenant.
	wantStatus(t, "staff", u.submit("nav-staff"), 200)
	u.fill("email", "support@example.com")
	u.fill("password", "support-password-1")
	u.do(chromedp.SetValue(sel("input-role"), "support"))
	wantStatus(t, "add staff", u.submit("staff-create-submit"), 200)
	u.visible("flash-success")
	u.shot("18-staff")

	// Revoking the key locks the API out at once.
	u.open("/admin/keys")
	token, err := chromedp.Run(u.ctx, chromedp.Value(chromedp.CSS(`input[name="_csrf"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := u.fetch("POST", "/admin/keys/"+keyID+"/revoke", map[string]string{"_csrf": token}); st != 200 {
		t.Errorf("revoke: %d", st)
	}
	r = s.do("POST", "/api/v1/forms/accept-submission", plain, map[string]any{"submission_id": "web-0002", "form_id": "newsletter"})
	if r.Status != 401 {
		t.Errorf("revoked key: %d %s", r.Status, r.Body)
	}

	// The record reads anonymised.
	u.open("/admin/submissions/web-0001")
	if got := u.text("contact-email"); got != "—" {
		t.Errorf("after erasure the e-mail reads %q", got)
	}
}

// TestAdminBrowserViewer: a viewer reads but is refused keys and erasure, and sees no
// navigation to them.
func TestAdminBrowserViewer(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t)
	tenant := s.tenant()
	s.cli("staff", "create", "--email", "viewer@example.com", "--password", "viewer-password-1", "--role", "viewer", "--tenant", tenant)
	u := newAdminUI(t, s)

	wantStatus(t, "sign in", u.signedIn("viewer@example.com", "viewer-password-1"), 200)
	u.visible("dashboard-records")
	for _, nav := range []string{"nav-keys", "nav-anonymise", "nav-tenants", "nav-staff", "nav-tenant"} {
		if u.present(nav) {
			t.Errorf("a viewer sees %s", nav)
		}
	}
	wantStatus(t, "forms", u.submit("nav-forms"), 200)
	if u.present("form-new") {
		t.Error("a viewer is offered a new form")
	}
	wantStatus(t, "keys", u.open("/admin/keys"), 403)
	u.visible("forbidden")
	u.shot("13-forbidden")
	wantStatus(t, "anonymise", u.open("/admin/anonymise"), 403)
	u.visible("forbidden")

	// With a valid CSRF token, the role still decides.
	u.open("/admin/forms")
	token, err := chromedp.Run(u.ctx, chromedp.Value(chromedp.CSS(`input[name="_csrf"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := u.fetch("POST", "/admin/anonymise", map[string]string{"_csrf": token, "email": "a@example.org", "confirm": "ERASE"}); st != 403 {
		t.Errorf("viewer erasure: %d, want 403", st)
	}
	if st, _ := u.fetch("POST", "/admin/keys", map[string]string{"_csrf": token, "name": "x", "scope": "all"}); st != 403 {
		t.Errorf("viewer key issue: %d, want 403", st)
	}
}

// TestAdminBrowserSecurity: a wrong password, CSRF-less posts, the 404 page and the cookie
// and header protections.
func TestAdminBrowserSecurity(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t)
	u := newAdminUI(t, s)

	wantStatus(t, "wrong password", u.signIn("root@example.com", "not-the-password"), 401)
	u.visible("flash-error")
	wrong := u.text("flash-error")
	wantStatus(t, "unknown user", u.signIn("nobody@example.com", "not-the-password"), 401)
	if got := u.text("flash-error"); got != wrong {
		t.Errorf("unknown user answered %q, wrong password %q", got, wrong)
	}
	u.shot("14-login-error")

	wantStatus(t, "sign in", u.signIn("root@example.com", "root-password-1"), 200)
	if cookies, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || strings.Contains(cookies, "cf_session") {
		t.Errorf("session cookie readable by scripts: %q %v", cookies, err)
	}

	// Without the token: 403 and nothing created; with it: created.
	if st, _ := u.fetch("POST", "/admin/tenants", map[string]string{"name": "No token"}); st != 403 {
		t.Errorf("post without CSRF token: %d, want 403", st)
	}
	if st, _ := u.fetch("POST", "/admin/tenants", map[string]string{"name": "Bad token", "_csrf": "forged"}); st != 403 {
		t.Errorf("post with a forged CSRF token: %d, want 403", st)
	}
	u.open("/admin/tenants")
	token, err := chromedp.Run(u.ctx, chromedp.Value(chromedp.CSS(`input[name="_csrf"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if st, body := u.fetch("POST", "/admin/tenants", map[string]string{"name": "With token", "_csrf": token}); st != 200 ||
		!strings.Contains(body, "With token") || strings.Contains(body, "No token") || strings.Contains(body, "Bad token") {
		t.Errorf("post with CSRF token: %d", st)
	}

	// The same CSRF-less post from outside the page, with the browser's session cookie.
	if st := u.postWithoutToken("/admin/tenants"); st != 403 {
		t.Errorf("net/http post without token: %d, want 403", st)
	}

	wantStatus(t, "admin 404", u.open("/admin/no-such-page"), 404)
	u.visible("error-page")
	r := s.do("GET", "/api/v1/no-such-endpoint", "", nil)
	if r.Status != 404 || !strings.Contains(string(r.Body), `"error":"NotFound"`) {
		t.Errorf("API 404: %d %s", r.Status, r.Body)
	}
	r = s.do("GET", "/admin/login", "", nil)
	for h, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "same-origin", "Cache-Control": "no-store"} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}

	// Signing out ends the session.
	wantStatus(t, "sign out", u.submit("logout-button"), 200)
	u.visible("login-form")
	wantStatus(t, "after sign-out", u.open("/admin/"), 200)
	u.visible("login-form")
}

// postWithoutToken posts with net/http, carrying the browser's cookies but no CSRF token.
func (u *adminUI) postWithoutToken(path string) int {
	u.t.Helper()
	res, err := chromedp.Call(u.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u.s.URL + "/admin/"}})
	if err != nil {
		u.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", u.s.URL+path, strings.NewReader("name=Outside"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range res.Cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
