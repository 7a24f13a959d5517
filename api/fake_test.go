package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// oneKey is a key store holding one key.
type oneKey struct{ k tenants.APIKey }

func (f oneKey) Lookup(_ context.Context, id string) (tenants.APIKey, error) {
	if id == f.k.ID {
		return f.k, nil
	}
	return tenants.APIKey{}, tenants.ErrNotFound
}

func (oneKey) Touch(context.Context, string, time.Time) error { return nil }

// oneTenant is a tenant store holding one active tenant.
type oneTenant struct{}

func (oneTenant) Get(_ context.Context, id string) (tenants.Tenant, error) {
	if id == "t_1" {
		return tenants.Tenant{ID: id, Name: "Tenant one"}, nil
	}
	return tenants.Tenant{}, tenants.ErrNotFound
}

// fakeEraser is the one case the erasure handler calls (the other person cases are left
// unimplemented: a call would panic); it remembers what it was asked.
type fakeEraser struct {
	Persons
	counts tenants.Counts
	err    error
	asked  struct {
		tenantID, actor, requestID string
		id                         ops.Identity
	}
}

func (f *fakeEraser) Erase(_ context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error) {
	f.asked.tenantID, f.asked.actor, f.asked.requestID, f.asked.id = tenantID, actor, requestID, id
	return ops.Erasure{Counts: f.counts}, f.err
}

// fakeApp is the API on a fake key store, tenant store and person cases; the key's plaintext
// is returned for the Authorization header.
func fakeApp(t *testing.T, p Persons, scopes ...string) (*fiber.App, tenants.APIKey, string) {
	t.Helper()
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	k, plain, err := tenants.NewAPIKey("t_1", "test", scopes, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	app := New(Deps{Keys: oneKey{k}, Tenants: oneTenant{}, Persons: p, Enforcer: enf,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return app, k, plain
}

// TestAnonymiseWithFakeEraser: the erasure handler hands the operation the normalised person,
// the key's tenant and actor and the request's id, and answers with the counts it returned; a
// database outage is the shared 503 and a failure of the operation the bare 500.
func TestAnonymiseWithFakeEraser(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"erased", nil, 200, `{"success":true,"anonymisedRecords":{"formSubmissions":2,"digitisationSubmissions":0,"canvassingSubmissions":1,"phoneCallTasks":0},"removedMentions":0}`},
		{"database down", tenants.ErrUnavailable, 503, `{"error":"ServiceUnavailable","message":"The service is temporarily unavailable; retry later.","details":{"retryAfter":5}}`},
		{"failed", errors.New("disk on fire"), 500, `{"error":"InternalError","message":"An internal error occurred.","requestId":"req-erase-1"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &fakeEraser{counts: tenants.Counts{FormSubmissions: 2, CanvassingSubmissions: 1}, err: c.err}
			app, k, plain := fakeApp(t, fake, tenants.ScopeGDPRAnonymise)
			req := httptest.NewRequest("POST", "/api/v1/gdpr/search-and-anonymise", strings.NewReader(`{"email":" Ann@Example.ORG "}`))
			req.Header.Set("Authorization", "Bearer "+plain)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Request-ID", "req-erase-1")
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || string(body) != c.body {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, body, c.status, c.body)
			}
			want := fakeEraser{}.asked
			want.tenantID, want.actor, want.requestID, want.id = "t_1", "key:"+k.ID, "req-erase-1", ops.Identity{Email: "ann@example.org"}
			if fake.asked != want {
				t.Errorf("asked %+v, want %+v", fake.asked, want)
			}
		})
	}
}

// TestAnonymiseNeedsItsScope: a key without gdpr:anonymise never reaches the operation.
func TestAnonymiseNeedsItsScope(t *testing.T) {
	fake := &fakeEraser{}
	app, _, plain := fakeApp(t, fake, tenants.ScopeSubmissionsRead)
	req := httptest.NewRequest("POST", "/api/v1/gdpr/search-and-anonymise", strings.NewReader(`{"email":"ann@example.org"}`))
	req.Header.Set("Authorization", "Bearer "+plain)
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 403 || fake.asked.tenantID != "" {
		t.Errorf("%d, operation asked %+v", resp.StatusCode, fake.asked)
	}
}

// TestReadyzAnswersTheShared503: while the database does not answer, /readyz is the 503 every
// route answers then (docs/API.md §2, §10.6), with Retry-After, and no internals.
func TestReadyzAnswersTheShared503(t *testing.T) {
	app := New(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ready: func(context.Context) error { return errors.New("dial tcp 10.0.0.7:27017: refused") }})
	resp, err := app.Test(httptest.NewRequest("GET", "/readyz", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `{"error":"ServiceUnavailable","message":"The service is temporarily unavailable; retry later.","details":{"retryAfter":5}}`
	if resp.StatusCode != 503 || string(body) != want || resp.Header.Get("Retry-After") != "5" {
		t.Errorf("%d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}
