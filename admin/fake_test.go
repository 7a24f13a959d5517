package admin

import (
	"context"
	"fmt"
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

// fakeEraser is what the anonymise pages call (the other person cases are left unimplemented:
// a call would panic): it counts previews and notes each erasure as "tenant actor request-id
// e-mail phone".
type fakeEraser struct {
	Persons
	counts   tenants.Counts
	err      error
	previews int
	erased   []string
}

func (f *fakeEraser) Preview(context.Context, string, ops.Identity) (ops.Erasure, error) {
	f.previews++
	return ops.Erasure{Counts: f.counts}, f.err
}

// FindPerson is what the preview lists: one record per count, of its kind.
func (f *fakeEraser) FindPerson(context.Context, string, ops.Identity) (own, mentions []tenants.Record, err error) {
	f.previews++
	for _, k := range tenants.Kinds() {
		for i := range f.counts.Map()[map[tenants.Kind]string{tenants.KindFormSubmission: "formSubmissions",
			tenants.KindDigitisation: "digitisationSubmissions", tenants.KindCanvassing: "canvassingSubmissions",
			tenants.KindPhoneCallTask: "phoneCallTasks"}[k]] {
			own = append(own, tenants.Record{Kind: k, PublicID: fmt.Sprintf("%s-%d", k, i)})
		}
	}
	return own, nil, f.err
}

func (f *fakeEraser) Erase(_ context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error) {
	f.erased = append(f.erased, strings.Join([]string{tenantID, actor, requestID, id.Email, id.Phone}, " "))
	return ops.Erasure{Counts: f.counts}, f.err
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
			fake := &fakeEraser{counts: tenants.Counts{FormSubmissions: 2, PhoneCallTasks: 1}, err: c.err}
			app, cookie, csrf := supportApp(t, fake)

			resp := send(t, app, "POST", web.PathAnonymise, cookie, url.Values{web.CSRFField: {csrf},
				"email": {" Ann@Example.ORG "}, "confirm": {web.AnonymiseConfirmWord}}, "X-Request-ID", "req-admin-1")
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(body), c.shows) {
				t.Fatalf("%d, want %d showing %s:\n%s", resp.StatusCode, c.status, c.shows, body)
			}
			if want := "t_1 staff:u_support req-admin-1 ann@example.org "; len(fake.erased) != 1 || fake.erased[0] != want {
				t.Errorf("erased %q, want [%q]", fake.erased, want)
			}
		})
	}
}

// TestAnonymiseUnconfirmedNeverErases: without the typed confirmation nothing is erased; the
// preview is shown again.
func TestAnonymiseUnconfirmedNeverErases(t *testing.T) {
	fake := &fakeEraser{counts: tenants.Counts{FormSubmissions: 1}}
	app, cookie, csrf := supportApp(t, fake)
	resp := send(t, app, "POST", web.PathAnonymise, cookie, url.Values{web.CSRFField: {csrf}, "email": {"ann@example.org"}, "confirm": {"yes"}})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 422 || !strings.Contains(string(body), "in capitals to confirm") || fake.previews != 1 || len(fake.erased) != 0 {
		t.Fatalf("%d, previews %d, erased %q:\n%s", resp.StatusCode, fake.previews, fake.erased, body)
	}
}

// supportApp is the real route table and middleware on fake stores and the operations o,
// behind the app's request id middleware, with a support user of tenant t_1 signed in: its
// session cookie and CSRF token.
func supportApp(t *testing.T, o Persons) (*fiber.App, *http.Cookie, string) {
	t.Helper()
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	users := map[string]tenants.Staff{"u_support": {ID: "u_support", Email: "s@example.org", Role: tenants.RoleSupport, TenantID: "t_1"}}
	h := newHandler(Deps{Store: Store{Staff: fakeStaff{users: users}, Tenants: fakeTenants{}, Forms: fakeForms{},
		Sessions: fakeSessions{m: map[string]tenants.Session{}}}, Persons: o, Enforcer: enf, Secret: testKey,
		Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error { requestid.Set(c); return c.Next() })
	h.mount(app, h.routes())
	cookie, csrf := sessionFor(t, h, "u_support", "", now)
	return app, cookie, csrf
}

// fakeForms is a tenant without forms.
type fakeForms struct{ tenants.FormRepo }

func (fakeForms) List(context.Context, string) ([]tenants.Form, error) { return nil, nil }
