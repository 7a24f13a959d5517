package main

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestLoginThrottleParallel: 40 wrong passwords for one account at once have at most 5
// checked (401); the rest are refused unchecked (429). Failures are counted per account and
// client address: the same account signs in from another address, and the addresses of
// X-Forwarded-For are believed only from a trusted proxy.
func TestLoginThrottleParallel(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.1/32")
	attacker := newAdminClient(t, s, "X-Forwarded-For: 198.51.100.7")
	attacker.get("/admin/login")
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, _ := attacker.post("/admin/login", url.Values{"email": {"root@example.com"}, "password": {"wrong-password-0"}})
			mu.Lock()
			counts[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("40 parallel wrong passwords: %d checked (401), %d refused unchecked (429)", counts[401], counts[429])
	if counts[401] > 5 || counts[401]+counts[429] != 40 || counts[429] < 35 {
		t.Fatalf("40 parallel wrong passwords: %v; want at most 5 checked (401), the rest 429", counts)
	}
	// The right password from the attacker's address is refused too (no guessing past the limit)...
	if st, _ := attacker.signIn("root@example.com", "root-password-1"); st != 429 {
		t.Errorf("right password from the throttled address: %d, want 429", st)
	}
	// ...but the staff member, elsewhere, signs in.
	if st, loc := newAdminClient(t, s, "X-Forwarded-For: 203.0.113.9").signIn("root@example.com", "root-password-1"); st != 303 || loc != "/admin/" {
		t.Errorf("the account from another address: %d %s, want 303 to /admin/", st, loc)
	}
	// A proxy chain: the client is the nearest untrusted address, whatever the client wrote.
	if st, _ := newAdminClient(t, s, "X-Forwarded-For: 203.0.113.9, 198.51.100.7").signIn("root@example.com", "root-password-1"); st != 429 {
		t.Errorf("a forged left-most X-Forwarded-For entry: %d, want 429", st)
	}
}

// TestForwardedHeadersNeedTrustedProxy: without trusted proxies, a client's X-Forwarded-For
// neither escapes the throttle nor does X-Forwarded-Proto make cookies Secure, send HSTS or
// change the URLs the admin shows; from a trusted proxy they count.
func TestForwardedHeadersNeedTrustedProxy(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for i := range 6 {
		c := newAdminClient(t, s, "X-Forwarded-For: 192.0.2."+string(rune('1'+i)))
		c.signIn("nobody@example.com", "wrong-password-0")
	}
	if st, _ := newAdminClient(t, s, "X-Forwarded-For: 192.0.2.99").signIn("nobody@example.com", "wrong-password-0"); st != 429 {
		t.Errorf("X-Forwarded-For from an untrusted peer changed the client address: %d, want 429", st)
	}
	spoof := newAdminClient(t, s, "X-Forwarded-Proto: https", "X-Forwarded-Host: evil.example")
	if st, _ := spoof.signIn("root@example.com", "root-password-1"); st != 303 {
		t.Fatalf("sign in: %d", st)
	}
	r := s.do("GET", "/admin/login", "", nil, "X-Forwarded-Proto: https")
	if r.Header.Get("Strict-Transport-Security") != "" {
		t.Error("HSTS on a plain HTTP request claiming HTTPS")
	}
	for _, c := range r.Header.Values("Set-Cookie") {
		if strings.Contains(strings.ToLower(c), "secure") {
			t.Errorf("cookie Secure from an untrusted X-Forwarded-Proto: %s", c)
		}
	}
	spoof.get("/admin/choose-tenant")
	spoof.post("/admin/choose-tenant", url.Values{"tenant": {openTenant(s)}})
	if _, body := spoof.get("/admin/forms/petition"); strings.Contains(body, "evil.example") || !strings.Contains(body, s.LinkBase+"/api/v1/brevo/unsubscribe") {
		t.Error("the webhook URLs shown follow an untrusted X-Forwarded-Host")
	}

	p := startServer(t, "CONSENTFORMS_TRUSTED_PROXIES=127.0.0.0/8, ::1")
	r = p.do("GET", "/admin/login", "", nil, "X-Forwarded-Proto: https")
	if r.Header.Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS for HTTPS through a trusted proxy")
	}
	secure := false
	for _, c := range r.Header.Values("Set-Cookie") {
		secure = secure || strings.Contains(strings.ToLower(c), "secure")
	}
	if !secure {
		t.Error("cookies not Secure for HTTPS through a trusted proxy")
	}
}

// TestAdminFormsOnlyURLEncoded: a multipart or JSON post to any admin form is refused 415
// before any form value is read; a gzip one gets the 415 every compressed body gets.
func TestAdminFormsOnlyURLEncoded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := newAdminClient(t, s)
	a.get("/admin/login")
	body := "--b\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\nroot@example.com\r\n--b--\r\n"
	for path, ct := range map[string]string{"/admin/login": "multipart/form-data; boundary=b", "/admin/tenants": "application/json"} {
		if st, page, _ := a.do("POST", path, ct, strings.NewReader(body)); st != 415 || !strings.Contains(page, "x-www-form-urlencoded") {
			t.Errorf("%s as %s: %d, want 415", path, ct, st)
		}
	}
	if st, _ := a.signIn("root@example.com", "root-password-1"); st != 303 {
		t.Errorf("a URL-encoded sign-in: %d", st)
	}
}

// TestFirstAdminMustChangePassword: the generated first password signs in only to the
// password page; every other page leads there until it is changed.
func TestFirstAdminMustChangePassword(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_ADMIN_PASSWORD=", "CONSENTFORMS_ADMIN_EMAIL=")
	m := regexp.MustCompile(`email:\s+(\S+)\s+password:\s+(\S+)`).FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("no first login printed: %q", s.stdout.String())
	}
	if !regexp.MustCompile(`Sign in at http://[^/\s]+:\d+/admin/login`).MatchString(s.stdout.String()) {
		t.Errorf("the first start names no full sign-in URL: %q", s.stdout.String())
	}
	a := newAdminClient(t, s)
	if st, loc := a.signIn(m[1], m[2]); st != 303 || loc != "/admin/password" {
		t.Fatalf("sign in with the generated password: %d %s, want 303 to /admin/password", st, loc)
	}
	if st, _, loc := a.do("GET", "/admin/tenants", "", nil); st != 303 || loc != "/admin/password" {
		t.Errorf("another page before the change: %d %s", st, loc)
	}
	if st, body := a.get("/admin/password"); st != 200 || !strings.Contains(body, `data-testid="password-required"`) {
		t.Errorf("password page: %d", st)
	}
	if st, body, _ := a.post("/admin/password", url.Values{"current": {"not-it-at-all"}, "password": {"a-new-password-1"},
		"confirm": {"a-new-password-1"}}); st != 422 || !strings.Contains(body, "not your current password") {
		t.Errorf("wrong current password: %d", st)
	}
	a.get("/admin/password")
	if st, _, loc := a.post("/admin/password", url.Values{"current": {m[2]}, "password": {"a-new-password-1"},
		"confirm": {"a-new-password-1"}}); st != 303 || loc != "/admin/" {
		t.Fatalf("change: %d %s", st, loc)
	}
	if st, _ := a.get("/admin/tenants"); st != 200 {
		t.Errorf("after the change: %d", st)
	}
	if st, _ := newAdminClient(t, s).signIn(m[1], m[2]); st != 401 {
		t.Errorf("the generated password after the change: %d, want 401", st)
	}
	if st, loc := newAdminClient(t, s).signIn(m[1], "a-new-password-1"); st != 303 || loc != "/admin/" {
		t.Errorf("the new password: %d %s", st, loc)
	}
}

// TestOperatorPasswordsOfTenCharacters: scripts set passwords of 10 characters from the
// environment and the CLI (the first admin, staff create, staff set-password), and local
// account names such as admin@localhost, and those users sign in; a password a person chooses
// in the admin UI needs 12.
func TestOperatorPasswordsOfTenCharacters(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_ADMIN_EMAIL=admin@localhost", "CONSENTFORMS_ADMIN_PASSWORD=ten-chars1")
	if st, _ := newAdminClient(t, s).signIn("admin@localhost", "ten-chars1"); st != 303 {
		t.Fatalf("sign in with a 10-character password from the environment: %d, want 303", st)
	}
	tn := s.cli("tenant", "create", "--name", "Ops")["id"].(string)
	s.cli("staff", "create", "--email", "ann@example.com", "--password", "annpass-10", "--role", "tenant_admin", "--tenant", tn)
	if st, _ := newAdminClient(t, s).signIn("ann@example.com", "annpass-10"); st != 303 {
		t.Errorf("sign in with a 10-character password from staff create: %d, want 303", st)
	}
	s.cli("staff", "set-password", "--email", "ann@example.com", "--password", "annpass-11")
	a := newAdminClient(t, s)
	if st, loc := a.signIn("ann@example.com", "annpass-11"); st != 303 || loc != "/admin/password" {
		t.Fatalf("sign in after set-password: %d %s, want 303 to /admin/password", st, loc)
	}
	// Choosing her own password, Ann needs 12 characters.
	a.get("/admin/password")
	st, body, _ := a.post("/admin/password", url.Values{"current": {"annpass-11"}, "password": {"eleven-char"}, "confirm": {"eleven-char"}})
	if st == 303 || !strings.Contains(body, "Use 12 to 72 characters.") {
		t.Errorf("an 11-character password chosen in the admin UI: %d, want the form again with the rule", st)
	}
	if _, err := s.cliErr("staff", "create", "--email", "bob@example.com", "--password", "nine-char", "--role", "viewer", "--tenant", tn); err == nil {
		t.Error("staff create took a 9-character password")
	}
}
