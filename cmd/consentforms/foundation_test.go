package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFoundationAuthAndErrors(t *testing.T) {
	s := startServer(t)
	tn := s.tenant()
	all := s.key(tn, "all")
	readOnly := s.key(tn, "submissions:read")
	revokedRaw := s.cli("key", "create", "--tenant", tn, "--scopes", "all")
	s.cli("key", "revoke", "--tenant", tn, "--id", revokedRaw["id"].(string))
	expired := s.cli("key", "create", "--tenant", tn, "--scopes", "all", "--expires", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))["key"].(string)
	valid := map[string]any{"form_id": "petition", "consent_to_general_contact_email": true, "email": "a@example.org"}

	cases := []struct {
		name          string
		method, path  string
		key           string
		body          any
		headers       []string
		status        int
		errKind, code string
	}{
		{"no key", "POST", "/api/v1/forms/accept-submission", "", valid, nil, 401, "Unauthorized", ""},
		{"not bearer", "POST", "/api/v1/forms/accept-submission", "", valid, []string{"Authorization: Token abc"}, 401, "Unauthorized", ""},
		{"unknown key", "POST", "/api/v1/forms/accept-submission", "cf_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567", valid, nil, 401, "Unauthorized", ""},
		{"garbage key", "POST", "/api/v1/forms/accept-submission", "nonsense", valid, nil, 401, "Unauthorized", ""},
		{"revoked key", "POST", "/api/v1/forms/accept-submission", revokedRaw["key"].(string), valid, nil, 401, "Unauthorized", ""},
		{"expired key", "POST", "/api/v1/forms/accept-submission", expired, valid, nil, 401, "Unauthorized", ""},
		{"missing scope", "POST", "/api/v1/forms/accept-submission", readOnly, valid, nil, 403, "Forbidden", ""},
		{"missing scope gdpr", "POST", "/api/v1/gdpr/search-and-anonymise", readOnly, map[string]any{"email": "a@example.org"}, nil, 403, "Forbidden", ""},
		{"unknown route", "GET", "/api/v1/nothing", all, nil, nil, 404, "NotFound", ""},
		{"unknown provider", "POST", "/api/v1/acme/unsubscribe", all, map[string]any{"email": "a@example.org"}, nil, 404, "NotFound", ""},
		{"invalid json", "POST", "/api/v1/forms/accept-submission", all, "{nope", nil, 400, "ValidationError", "invalid_json"},
		{"json not an object", "POST", "/api/v1/forms/accept-submission", all, "[1,2]", nil, 400, "ValidationError", "invalid_json"},
		{"json null", "POST", "/api/v1/gdpr/search-and-anonymise", all, "null", nil, 400, "ValidationError", "invalid_json"},
		{"too large", "POST", "/api/v1/forms/accept-submission", all, `{"x":"` + strings.Repeat("a", 1<<20) + `"}`, nil, 413, "PayloadTooLarge", ""},
		{"valid", "POST", "/api/v1/forms/accept-submission", all, valid, nil, 200, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(c.method, c.path, c.key, c.body, c.headers...)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			if c.errKind == "" {
				return
			}
			m := r.JSON(t)
			if m["error"] != c.errKind || m["message"] == "" || m["message"] == nil {
				t.Errorf("body %s, want error %q with a message", r.Body, c.errKind)
			}
			if c.code != "" && m["code"] != c.code {
				t.Errorf("code %v, want %q", m["code"], c.code)
			}
		})
	}
}

func TestHealthAndRequestID(t *testing.T) {
	s := startServer(t)
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := s.do("GET", p, "", nil); r.Status != 200 {
			t.Errorf("%s: %d", p, r.Status)
		}
	}
	r := s.do("GET", "/healthz", "", nil, "X-Request-ID: trace-123")
	if r.Header.Get("X-Request-ID") != "trace-123" {
		t.Errorf("request id not echoed: %q", r.Header.Get("X-Request-ID"))
	}
}

func TestRateLimitPerKey(t *testing.T) {
	s := startServer(t)
	tn := s.tenant("--rate-limit", "2")
	k1, k2 := s.key(tn, "all"), s.key(tn, "all")
	var limited response
	for i := 0; i < 10; i++ {
		if r := s.do("GET", "/api/v1/consents?email=a@example.org", k1, nil); r.Status == 429 {
			limited = r
			break
		}
	}
	if limited.Status != 429 {
		t.Fatal("no 429 after 10 requests at a limit of 2/s")
	}
	var body struct {
		Error   string
		Message string
		Details struct{ RetryAfter int }
	}
	if err := json.Unmarshal(limited.Body, &body); err != nil || body.Error != "RateLimitExceeded" || body.Details.RetryAfter < 1 {
		t.Errorf("429 body %s", limited.Body)
	}
	if limited.Header.Get("Retry-After") == "" || limited.Header.Get("Retry-After") != "1" && body.Details.RetryAfter == 1 {
		t.Errorf("Retry-After %q, retryAfter %d", limited.Header.Get("Retry-After"), body.Details.RetryAfter)
	}
	if r := s.do("GET", "/api/v1/consents?email=a@example.org", k2, nil); r.Status != 200 {
		t.Errorf("another key of the tenant limited too: %d", r.Status)
	}
}

func TestTenantIsolation(t *testing.T) {
	s := startServer(t)
	a, b := s.tenant(), s.tenant()
	ka, kb := s.key(a, "all"), s.key(b, "all")
	sub := map[string]any{"form_id": "petition", "submission_id": "same-id", "email": "p@example.org", "consent_to_general_contact_email": true}
	if r := s.do("POST", "/api/v1/forms/accept-submission", ka, sub); r.Status != 200 {
		t.Fatalf("a: %d %s", r.Status, r.Body)
	}
	if r := s.do("GET", "/api/v1/forms/submissions/same-id", kb, nil); r.Status != 404 {
		t.Errorf("b reads a's submission: %d", r.Status)
	}
	if r := s.do("GET", "/api/v1/consents?email=p@example.org", kb, nil); !strings.Contains(string(r.Body), `"submissions":[]`) {
		t.Errorf("b sees a's consents: %s", r.Body)
	}
	if r := s.do("POST", "/api/v1/gdpr/search-and-anonymise", kb, map[string]any{"email": "p@example.org"}); !strings.Contains(string(r.Body), `"formSubmissions":0`) {
		t.Errorf("b erased a's data: %s", r.Body)
	}
	if r := s.do("GET", "/api/v1/forms/submissions/same-id", ka, nil); !strings.Contains(string(r.Body), "p@example.org") {
		t.Errorf("a's submission changed: %s", r.Body)
	}
}
