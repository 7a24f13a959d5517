package admin

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// fakeEraser is the one operation the anonymise page calls (it observes nothing); it
// remembers what it was asked.
type fakeEraser struct {
	unwired
	counts ops.Counts
	err    error
	asked  struct {
		tenantID, actor, requestID string
		id                         ops.Identity
	}
}

func (f *fakeEraser) Erase(_ context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Counts, error) {
	f.asked.tenantID, f.asked.actor, f.asked.requestID, f.asked.id = tenantID, actor, requestID, id
	return f.counts, f.err
}

// TestAnonymiseWithFakeEraser: through the real route table and middleware, a support user's
// confirmed erasure hands the operation the normalised person, the user's tenant, the audit
// actor and the request id, and shows the counts it returned; a database outage shows the
// 503 page with the request id.
func TestAnonymiseWithFakeEraser(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		shows  string
	}{
		{"erased", nil, 200, `<p data-testid="anonymise-result-total">3 records anonymised.</p>`},
		{"database down", tenants.ErrUnavailable, 503, `<code data-testid="error-request-id">req-admin-1</code>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &fakeEraser{counts: ops.Counts{FormSubmissions: 2, PhoneCallTasks: 1}, err: c.err}
			app, cookie, csrf := supportApp(t, fake)

			resp := send(t, app, "POST", web.PathAnonymise, cookie, url.Values{web.CSRFField: {csrf},
				"email": {" Ann@Example.ORG "}, "confirm": {web.AnonymiseConfirmWord}}, "X-Request-ID", "req-admin-1")
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(body), c.shows) {
				t.Fatalf("%d, want %d showing %s:\n%s", resp.StatusCode, c.status, c.shows, body)
			}
			want := fakeEraser{}.asked
			want.tenantID, want.actor, want.requestID, want.id = "t_1", "staff:u_support", "req-admin-1", ops.Identity{Email: "ann@example.org"}
			if fake.asked != want {
				t.Errorf("asked %+v, want %+v", fake.asked, want)
			}
		})
	}
}

// TestAnonymiseUnconfirmedNeverErases: without the typed confirmation the operation is not
// called (the preview is shown again, through the fake's Preview).
func TestAnonymiseUnconfirmedNeverErases(t *testing.T) {
	fake := &previewOnly{}
	app, cookie, csrf := supportApp(t, fake)
	resp := send(t, app, "POST", web.PathAnonymise, cookie, url.Values{web.CSRFField: {csrf}, "email": {"ann@example.org"}, "confirm": {"yes"}})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 422 || !strings.Contains(string(body), "in capitals to confirm") || fake.previews != 1 {
		t.Fatalf("%d, previews %d:\n%s", resp.StatusCode, fake.previews, body)
	}
}

// previewOnly answers Preview; an Erase would panic on the nil Operations.
type previewOnly struct {
	unwired
	previews int
}

func (f *previewOnly) Preview(context.Context, string, ops.Identity) (ops.Counts, error) {
	f.previews++
	return ops.Counts{FormSubmissions: 1}, nil
}

// supportApp is the real route table and middleware on fake stores and the operations o,
// behind the app's request id middleware, with a support user of tenant t_1 signed in: its
// session cookie and CSRF token.
func supportApp(t *testing.T, o Operations) (*fiber.App, *http.Cookie, string) {
	t.Helper()
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	users := map[string]tenants.Staff{"u_support": {ID: "u_support", Email: "s@example.org", Role: tenants.RoleSupport, TenantID: "t_1"}}
	h := newHandler(Deps{Store: Store{Staff: fakeStaff{users: users}, Tenants: fakeTenants{},
		Sessions: fakeSessions{m: map[string]tenants.Session{}}}, Ops: o, Enforcer: enf, Secret: testKey,
		Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error { requestid.Set(c); return c.Next() })
	h.mount(app, h.routes())
	cookie, csrf := sessionFor(t, h, "u_support", "", now)
	return app, cookie, csrf
}
