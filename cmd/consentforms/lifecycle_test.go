package main

import (
	"testing"
	"time"
)

// TestSuspendedTenant: a suspended tenant's keys answer 401 (docs/API.md §1), and work again
// once it is reactivated.
func TestSuspendedTenant(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	k := s.key(tn, "all")
	s.cli("tenant", "suspend", "--tenant", tn)
	r := s.do("GET", "/api/v1/consents?email=a@example.org", k, nil)
	if r.Status != 401 || r.JSON(t)["error"] != "Unauthorized" {
		t.Fatalf("suspended: %d %s", r.Status, r.Body)
	}
	s.cli("tenant", "activate", "--tenant", tn)
	waitStatus(t, s, k, 200, 30*time.Second)
}

// TestRevokedKeyRefusedWithin30s: a key revoked from the CLI while the server runs and has it
// cached answers 401 within 30 seconds.
func TestRevokedKeyRefusedWithin30s(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	created := s.cli("key", "create", "--tenant", tn, "--scopes", "all")
	k := created["key"].(string)
	if r := s.do("GET", "/api/v1/consents?email=a@example.org", k, nil); r.Status != 200 {
		t.Fatalf("before revocation: %d", r.Status)
	}
	s.cli("key", "revoke", "--tenant", tn, "--id", created["id"].(string))
	waitStatus(t, s, k, 401, 30*time.Second)
}

// waitStatus polls a read with key until it answers want, failing after limit.
func waitStatus(t *testing.T, s *testServer, key string, want int, limit time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		r := s.do("GET", "/api/v1/consents?email=a@example.org", key, nil)
		if r.Status == want {
			t.Logf("answered %d after %s", want, time.Since(start).Round(time.Second))
			return
		}
		if time.Since(start) > limit {
			t.Fatalf("still %d after %s, want %d", r.Status, limit, want)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestMailchimpTokenRevoked: a revoked Mailchimp webhook token is refused at once.
func TestMailchimpTokenRevoked(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	tok := s.cli("token", "create", "--tenant", tn, "--provider", "mailchimp")
	path := "/api/v1/mailchimp/unsubscribe?token=" + tok["token"].(string)
	body := map[string]any{"email": "nobody@example.org"}
	if r := s.do("POST", path, "", body); r.Status != 200 {
		t.Fatalf("live token: %d %s", r.Status, r.Body)
	}
	s.cli("token", "revoke", "--tenant", tn, "--id", tok["id"].(string))
	if r := s.do("POST", path, "", body); r.Status != 401 {
		t.Fatalf("revoked token: %d %s", r.Status, r.Body)
	}
	if _, err := s.cliErr("token", "revoke", "--tenant", s.tenant(), "--id", tok["id"].(string)); err == nil {
		t.Error("another tenant revoked the token")
	}
}
