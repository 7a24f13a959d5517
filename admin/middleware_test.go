package admin

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

type fakeStaff struct {
	tenants.StaffRepo
	users map[string]tenants.Staff
}

func (f fakeStaff) Lookup(_ context.Context, id string) (tenants.Staff, error) {
	if s, ok := f.users[id]; ok {
		return s, nil
	}
	return tenants.Staff{}, tenants.ErrNotFound
}

// fakeSessions records sessions in memory, as the stores do.
type fakeSessions struct {
	tenants.SessionRepo
	m map[string]tenants.Session
}

func (f fakeSessions) Insert(_ context.Context, s tenants.Session) error { f.m[s.ID] = s; return nil }
func (f fakeSessions) Delete(_ context.Context, id string) error         { delete(f.m, id); return nil }

func (f fakeSessions) Get(_ context.Context, id string) (tenants.Session, error) {
	if s, ok := f.m[id]; ok {
		return s, nil
	}
	return tenants.Session{}, tenants.ErrNotFound
}

type fakeTenants struct{ tenants.TenantRepo }

func (fakeTenants) Get(_ context.Context, id string) (tenants.Tenant, error) {
	if id == "t_1" {
		return tenants.Tenant{ID: id, Name: "Tenant one"}, nil
	}
	return tenants.Tenant{}, tenants.ErrNotFound
}

func (fakeTenants) List(context.Context) ([]tenants.Tenant, error) {
	return []tenants.Tenant{{ID: "t_1", Name: "Tenant one"}}, nil
}

// testApp mounts a small route table through the real middleware; calls counts handler runs.
func testApp(t *testing.T, now *time.Time) (*fiber.App, *handler, *int) {
	t.Helper()
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]tenants.Staff{
		"u_admin":  {ID: "u_admin", Email: "a@example.org", Role: tenants.RoleTenantAdmin, TenantID: "t_1"},
		"u_viewer": {ID: "u_viewer", Email: "v@example.org", Role: tenants.RoleViewer, TenantID: "t_1"},
		"u_root":   {ID: "u_root", Email: "r@example.org", Role: tenants.RolePlatformAdmin},
	}
	h := newHandler(Deps{Store: Store{Staff: fakeStaff{users: users}, Tenants: fakeTenants{},
		Sessions: fakeSessions{m: map[string]tenants.Session{}}}, Enforcer: enf,
		Secret: testKey, Now: func() time.Time { return *now }})
	calls := 0
	ok := func(c *fiber.Ctx, s *session) error { calls++; return c.SendString("ok " + s.TenantID) }
	app := fiber.New()
	h.mount(app, []route{
		{get, "/admin/keys", access{"admin:keys", "read", true}, signedIn, ok},
		{post, "/admin/keys", access{"admin:keys", "write", true}, signedIn, ok},
		{get, "/admin/audit", access{"admin:audit", "read", false}, signedIn, ok},
		{post, "/admin/logout", access{}, anyStaff, h.logout},
		{get, "/admin/forms/:id", access{"admin:forms", "read", true}, signedIn,
			func(c *fiber.Ctx, _ *session) error { return c.SendString(pathID(c)) }},
	})
	app.Use("/admin", h.notFound)
	return app, h, &calls
}

// sessionFor records a session for user at now and signs its cookie.
func sessionFor(t *testing.T, h *handler, user, tenant string, now time.Time) (*http.Cookie, string) {
	t.Helper()
	cl := claims{SessionID: "sid-" + user, AuthTime: now.Unix(), Tenant: tenant}
	cl.Subject = user
	must(t, h.Store.Sessions.Insert(context.Background(), tenants.Session{ID: sessionRef(cl.SessionID), StaffID: user,
		CreatedAt: now, ExpiresAt: now.Add(sessionMax)}))
	k := h.sessionKeys()[0]
	tok, _, err := signToken(k.jwt, k.id, cl, now)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: sessionCookie, Value: tok}, h.csrfFor(cl.SessionID)
}

func send(t *testing.T, app *fiber.App, method, path string, cookie *http.Cookie, form url.Values, header ...string) *http.Response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestMiddleware(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	app, h, calls := testApp(t, &now)
	admin, token := sessionFor(t, h, "u_admin", "", now)
	viewer, viewerToken := sessionFor(t, h, "u_viewer", "", now)
	root, rootToken := sessionFor(t, h, "u_root", "", now)
	gone, goneToken := sessionFor(t, h, "u_deleted", "", now)

	cases := []struct {
		name         string
		method, path string
		cookie       *http.Cookie
		form         url.Values
		header       []string
		status       int
		ran          bool
	}{
		{"signed out GET goes to sign-in", get, "/admin/keys", nil, nil, nil, 303, false},
		{"signed out POST is refused", post, "/admin/keys", nil, url.Values{"_csrf": {token}}, nil, 403, false},
		{"GET", get, "/admin/keys", admin, nil, nil, 200, true},
		{"POST without token", post, "/admin/keys", admin, url.Values{"name": {"x"}}, nil, 403, false},
		{"POST with another session's token", post, "/admin/keys", admin, url.Values{"_csrf": {viewerToken}}, nil, 403, false},
		{"POST with token", post, "/admin/keys", admin, url.Values{"_csrf": {token}}, nil, 200, true},
		{"POST with htmx header", post, "/admin/keys", admin, url.Values{}, []string{"X-CSRF-Token", token}, 200, true},
		{"viewer refused", get, "/admin/keys", viewer, nil, nil, 403, false},
		{"viewer refused before CSRF passes", post, "/admin/keys", viewer, url.Values{"_csrf": {viewerToken}}, nil, 403, false},
		{"deleted user signed out", get, "/admin/keys", gone, nil, nil, 303, false},
		{"deleted user's post", post, "/admin/keys", gone, url.Values{"_csrf": {goneToken}}, nil, 303, false},
		{"platform admin without tenant is asked", get, "/admin/keys", root, nil, nil, 200, false},
		{"platform admin audit spans tenants", get, "/admin/audit", root, nil, nil, 200, true},
		{"platform admin POST without token", post, "/admin/keys", root, url.Values{}, nil, 403, false},
		{"unknown admin path", get, "/admin/nothing", admin, nil, nil, 404, false},
		{"unknown admin path, POST without token", post, "/admin/nothing", admin, url.Values{}, nil, 403, false},
		{"unknown admin path, POST with token", post, "/admin/nothing", admin, url.Values{"_csrf": {token}}, nil, 404, false},
		{"forged cookie", get, "/admin/keys", &http.Cookie{Name: sessionCookie, Value: "x.y.z"}, nil, nil, 303, false},
	}
	_ = rootToken
	for _, c := range cases {
		before := *calls
		resp := send(t, app, c.method, c.path, c.cookie, c.form, c.header...)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if ran := *calls > before; ran != c.ran {
			t.Errorf("%s: handler ran %v, want %v", c.name, ran, c.ran)
		}
		if c.status != 303 && resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no CSP header", c.name)
		}
	}
}

func TestPlatformAdminTenantFromSession(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	app, h, _ := testApp(t, &now)
	root, _ := sessionFor(t, h, "u_root", "t_1", now)
	if b := readBody(t, send(t, app, get, "/admin/keys", root, nil)); b != "ok t_1" {
		t.Errorf("chosen tenant: %q", b)
	}
	// A tenant user's token cannot name another tenant.
	admin, _ := sessionFor(t, h, "u_admin", "t_other", now)
	if b := readBody(t, send(t, app, get, "/admin/keys", admin, nil)); b != "ok t_1" {
		t.Errorf("tenant admin with a tenant claim: %q", b)
	}
	// A chosen tenant that is gone asks again.
	stale, _ := sessionFor(t, h, "u_root", "t_gone", now)
	if b := readBody(t, send(t, app, get, "/admin/keys", stale, nil)); !strings.Contains(b, "tenant-prompt") {
		t.Errorf("gone tenant: %q", b)
	}
}

func TestSessionRenewalAndSignOut(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	app, h, _ := testApp(t, &now)
	admin, _ := sessionFor(t, h, "u_admin", "", now)

	now = now.Add(sessionTTL / 4)
	if c := sessionCookieOf(send(t, app, get, "/admin/keys", admin, nil)); c != "" {
		t.Error("renewed before half-life")
	}
	now = now.Add(sessionTTL / 2)
	renewed := sessionCookieOf(send(t, app, get, "/admin/keys", admin, nil))
	if renewed == "" {
		t.Fatal("not renewed past half-life")
	}
	now = now.Add(sessionTTL / 2) // the first token has expired, the renewed one lives
	if resp := send(t, app, get, "/admin/keys", admin, nil); resp.StatusCode != 303 {
		t.Errorf("expired token: %d", resp.StatusCode)
	}
	if resp := send(t, app, get, "/admin/keys", &http.Cookie{Name: sessionCookie, Value: renewed}, nil); resp.StatusCode != 200 {
		t.Errorf("renewed token: %d", resp.StatusCode)
	}

	renewedCookie := &http.Cookie{Name: sessionCookie, Value: renewed}
	out := send(t, app, post, "/admin/logout", renewedCookie, url.Values{"_csrf": {h.csrfFor("sid-u_admin")}})
	if out.StatusCode != 303 || out.Header.Get("Location") != "/admin/login" {
		t.Fatalf("sign out: %d %s", out.StatusCode, out.Header.Get("Location"))
	}
	if c := sessionCookieOf(out); c != "" {
		t.Errorf("sign-out left the cookie %q", c)
	}
	if resp := send(t, app, get, "/admin/keys", &http.Cookie{Name: sessionCookie, Value: renewed}, nil); resp.StatusCode != 303 {
		t.Errorf("signed-out token: %d", resp.StatusCode)
	}
}

// TestPathIDs: form ids may hold . _ : - and reach the handler whole.
func TestPathIDs(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	app, h, _ := testApp(t, &now)
	admin, _ := sessionFor(t, h, "u_admin", "", now)
	for _, id := range []string{"newsletter", "a.b", "x:y", "v1.2-beta_3:final", "a.json"} {
		if got := readBody(t, send(t, app, get, web.FormPath(id), admin, nil)); got != id {
			t.Errorf("form id %q reached the handler as %q", id, got)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sessionCookieOf(resp *http.Response) string {
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			return c.Value
		}
	}
	return ""
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
