package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
)

// downKeys is a key store whose database is unreachable.
type downKeys struct{}

func (downKeys) Lookup(context.Context, string) (tenants.APIKey, error) {
	return tenants.APIKey{}, fmt.Errorf("lookup api key: %w: server selection timeout", tenants.ErrUnavailable)
}

func (downKeys) Touch(context.Context, string, time.Time) error { return nil }

// TestUnavailableStore: while the database cannot be reached the API answers 503 with
// the body of docs/API.md §2 and a Retry-After header, and leaks no internals.
func TestUnavailableStore(t *testing.T) {
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	app := New(Deps{Keys: downKeys{}, Enforcer: enf, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ready: func(context.Context) error { return tenants.ErrUnavailable }})
	req := httptest.NewRequest("POST", "/api/v1/forms/accept-submission", strings.NewReader(`{"form_id":"f"}`))
	req.Header.Set("Authorization", "Bearer cf_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567")
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	var m struct {
		Error   string
		Message string
		Details struct{ RetryAfter int }
	}
	if resp.StatusCode != 503 || json.Unmarshal(body, &m) != nil || m.Error != "ServiceUnavailable" || m.Details.RetryAfter < 1 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("Retry-After") != fmt.Sprint(m.Details.RetryAfter) {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	if strings.Contains(string(body), "selection") {
		t.Errorf("internals leaked: %s", body)
	}
	ready, _ := app.Test(httptest.NewRequest("GET", "/readyz", nil), -1)
	if ready.StatusCode != 503 || ready.Header.Get("Retry-After") == "" {
		t.Errorf("readyz while down: %d", ready.StatusCode)
	}
}

// TestRetryAfterOfStore: a 503 says when a repeat can succeed where the store knows (an
// erasure claim's lease, rounded up to whole seconds), else the default.
func TestRetryAfterOfStore(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("find: %w", tenants.ErrUnavailable), unavailableRetry},
		{&tenants.RetryError{Err: tenants.ErrUnavailable, After: 24200 * time.Millisecond}, 25},
		{fmt.Errorf("erase: %w", &tenants.RetryError{Err: tenants.ErrUnavailable, After: time.Millisecond}), 1},
	} {
		if got := retryAfter(c.err); got != c.want {
			t.Errorf("retryAfter(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
