package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionEndsOnEveryInstance: a session cookie copied to a second server sharing the
// store works there until the user signs out on the first; then it is dead on both.
func TestSessionEndsOnEveryInstance(t *testing.T) {
	t.Parallel()
	a := startServer(t)
	b := startOn(t, a.Dir, a.envList()...)
	user := newAdminClient(t, a)
	if st, _ := user.signIn("root@example.com", "root-password-1"); st != 303 {
		t.Fatalf("sign in: %d", st)
	}
	stolen := withCookie(t, b, user.sessionCookie())
	if st, _ := stolen.get("/admin/tenants"); st != 200 {
		t.Fatalf("the copied cookie on the second instance: %d, want 200", st)
	}
	user.get("/admin/tenants")
	if st, _, loc := user.post("/admin/logout", nil); st != 303 || loc != "/admin/login" {
		t.Fatalf("sign out: %d %s", st, loc)
	}
	for name, c := range map[string]*adminClient{"first": withCookie(t, a, stolen.sessionCookie()), "second": stolen} {
		if st, _, loc := c.do("GET", "/admin/tenants", "", nil); st != 303 || loc != "/admin/login" {
			t.Errorf("the copied cookie on the %s instance after sign-out: %d %s, want 303 to /admin/login", name, st, loc)
		}
	}
}

// TestStaffDisabledAndPasswordChanged: a tenant admin disables a user of their tenant (the
// user's sessions end on every instance, and sign-in is refused), re-enables them; cannot
// touch another tenant's user or themselves. A password change ends the user's other
// sessions.
func TestStaffDisabledAndPasswordChanged(t *testing.T) {
	t.Parallel()
	a := startServer(t)
	b := startOn(t, a.Dir, a.envList()...)
	tn, other := openTenant(a), a.cli("tenant", "create", "--name", "Other")["id"].(string)
	a.cli("staff", "create", "--email", "boss@example.org", "--password", "boss-password-1", "--role", "tenant_admin", "--tenant", tn)
	id := a.cli("staff", "create", "--email", "sue@example.org", "--password", "sue-password-1", "--role", "support", "--tenant", tn)["id"].(string)
	otherID := a.cli("staff", "create", "--email", "oz@example.org", "--password", "oz-password-11", "--role", "viewer", "--tenant", other)["id"].(string)

	sue := newAdminClient(t, b)
	if st, _ := sue.signIn("sue@example.org", "sue-password-1"); st != 303 {
		t.Fatalf("sue signs in: %d", st)
	}
	boss := newAdminClient(t, a)
	if st, _ := boss.signIn("boss@example.org", "boss-password-1"); st != 303 {
		t.Fatalf("boss signs in: %d", st)
	}
	boss.get("/admin/staff")
	for _, target := range []string{otherID, bossID(t, boss)} {
		if st, _, _ := boss.post("/admin/staff/"+target+"/disable", nil); st != 404 {
			t.Errorf("disable %s (another tenant's, or oneself): %d, want 404", target, st)
		}
	}
	if st, _, _ := boss.post("/admin/staff/"+id+"/disable", nil); st != 303 {
		t.Fatalf("disable sue: %d", st)
	}
	if _, page := boss.get("/admin/staff"); !strings.Contains(page, "Disabled") {
		t.Error("the staff list does not show sue disabled")
	}
	if st, _, loc := sue.do("GET", "/admin/submissions", "", nil); st != 303 || loc != "/admin/login" {
		t.Errorf("disabled user's session on the other instance: %d %s", st, loc)
	}
	if st, _ := newAdminClient(t, b).signIn("sue@example.org", "sue-password-1"); st != 403 {
		t.Errorf("disabled user signs in: %d, want 403", st)
	}
	if st, _, _ := boss.post("/admin/staff/"+id+"/enable", nil); st != 303 {
		t.Fatalf("enable sue: %d", st)
	}
	if st, _ := sue.signIn("sue@example.org", "sue-password-1"); st != 303 {
		t.Errorf("re-enabled user signs in: %d", st)
	}

	// Sue changes her password on b: her session on a ends, the one she used goes on.
	sueOnA := newAdminClient(t, a)
	sueOnA.signIn("sue@example.org", "sue-password-1")
	sue.get("/admin/password")
	if st, _, _ := sue.post("/admin/password", url.Values{"current": {"sue-password-1"}, "password": {"sue-password-22"},
		"confirm": {"sue-password-22"}}); st != 303 {
		t.Fatalf("change password: %d", st)
	}
	if st, _ := sue.get("/admin/submissions"); st != 200 {
		t.Errorf("the session that changed the password: %d, want 200", st)
	}
	if st, _, _ := sueOnA.do("GET", "/admin/submissions", "", nil); st != 303 {
		t.Errorf("another session after the password change: %d, want 303", st)
	}
}

// bossID is the signed-in tenant admin's own id, read from the staff page.
func bossID(t *testing.T, c *adminClient) string {
	t.Helper()
	_, page := c.get("/admin/staff")
	i := strings.Index(page, `data-testid="staff-email">boss@example.org`)
	j := strings.LastIndex(page[:i], `data-staff-id="`)
	if i < 0 || j < 0 {
		t.Fatal("own row not found")
	}
	rest := page[j+len(`data-staff-id="`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestSuspendedTenantStaff: suspending a tenant signs its staff out and refuses their
// sign-in; a platform admin may still work on it.
func TestSuspendedTenantStaff(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "sue@example.org", "--password", "sue-password-1", "--role", "support", "--tenant", tn)
	sue := newAdminClient(t, s)
	if st, _ := sue.signIn("sue@example.org", "sue-password-1"); st != 303 {
		t.Fatalf("sign in: %d", st)
	}
	s.cli("tenant", "suspend", "--tenant", tn)
	if st, _, loc := sue.do("GET", "/admin/submissions", "", nil); st != 303 || loc != "/admin/login" {
		t.Errorf("suspended tenant's session: %d %s", st, loc)
	}
	sue = newAdminClient(t, s)
	sue.get("/admin/login")
	if st, body, _ := sue.post("/admin/login", url.Values{"email": {"sue@example.org"}, "password": {"sue-password-1"}}); st != 403 ||
		!strings.Contains(body, "suspended") {
		t.Errorf("suspended tenant's sign-in: %d, want 403 saying suspended", st)
	}
	root := newAdminClient(t, s)
	root.signIn("root@example.com", "root-password-1")
	root.get("/admin/choose-tenant")
	root.post("/admin/choose-tenant", url.Values{"tenant": {tn}})
	if st, _ := root.get("/admin/submissions"); st != 200 {
		t.Errorf("platform admin on the suspended tenant: %d", st)
	}
	s.cli("tenant", "activate", "--tenant", tn)
	if st, _ := sue.signIn("sue@example.org", "sue-password-1"); st != 303 {
		t.Errorf("after re-activation: %d", st)
	}
}

// TestSessionKeyRotation: after 'secrets rotate-session-key' a running server signs with
// the new key (renewing sessions signed with the old one); the old key is dropped from the
// file one token lifetime later, and a token it signed is then refused.
func TestSessionKeyRotation(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if s.getenv("MONGODB_URI") != "" {
		t.Skip("the secrets file is the same on both stores")
	}
	u := newAdminClient(t, s)
	u.signIn("root@example.com", "root-password-1")
	before := u.sessionCookie().Value
	out := s.cli("secrets", "rotate-session-key")
	if out["sessionKeyId"] != "2" || out["retired"] != "1" {
		t.Fatalf("rotate: %v", out)
	}
	fi, _ := os.Stat(filepath.Join(s.Dir, "secrets.json"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode after rotation: %v", fi.Mode().Perm())
	}
	// The old token still works within its lifetime. A fresh server on the same files (as
	// a running one after its next check) signs with key 2.
	if st, _ := u.get("/admin/tenants"); st != 200 {
		t.Errorf("the session signed with the retired key: %d", st)
	}
	fresh := startOn(t, s.Dir, s.envList()...)
	v := newAdminClient(t, fresh)
	v.signIn("root@example.com", "root-password-1")
	if kid := tokenKid(t, v.sessionCookie().Value); kid != "2" {
		t.Errorf("new session's kid %q, want 2", kid)
	}
	if kid := tokenKid(t, before); kid != "1" {
		t.Errorf("old session's kid %q, want 1", kid)
	}
	// Renewal moves an old session onto the new key.
	old := withCookie(t, fresh, u.sessionCookie())
	old.get("/admin/tenants")
	if kid := tokenKid(t, old.sessionCookie().Value); kid != "2" {
		t.Errorf("renewed session's kid %q, want 2", kid)
	}
	// Rotating again past the lifetime drops key 1: a token it signed is refused.
	if _, err := rotateSessionKey(configFrom(fresh.getenv), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	third := startOn(t, s.Dir, s.envList()...)
	if st, _, _ := withCookie(t, third, &http.Cookie{Name: "cf_session", Value: before}).do("GET", "/admin/tenants", "", nil); st != 303 {
		t.Errorf("a token of a key retired past its lifetime: %d, want 303", st)
	}
}

// tokenKid is the key id in a session token's header.
func tokenKid(t *testing.T, tok string) string {
	t.Helper()
	head, _, _ := strings.Cut(tok, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	var h struct {
		Kid string `json:"kid"`
	}
	if err != nil || json.Unmarshal(b, &h) != nil {
		t.Fatalf("token header %q", head)
	}
	return h.Kid
}

// TestStaffCLI: the operator's way back: disable and re-enable a user, and set a forgotten
// password, which ends the user's sessions and must be changed at the next sign-in.
func TestStaffCLI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	u := newAdminClient(t, s)
	u.signIn("root@example.com", "root-password-1")
	if out := s.cli("staff", "disable", "--email", "ROOT@example.com"); out["disabled"] != true {
		t.Fatalf("disable: %v", out)
	}
	if st, _, _ := u.do("GET", "/admin/tenants", "", nil); st != 303 {
		t.Errorf("a disabled user's session: %d, want 303", st)
	}
	if st, _ := newAdminClient(t, s).signIn("root@example.com", "root-password-1"); st != 403 {
		t.Errorf("a disabled user signs in: %d, want 403", st)
	}
	s.cli("staff", "enable", "--email", "root@example.com")
	u.signIn("root@example.com", "root-password-1")
	s.cli("staff", "set-password", "--email", "root@example.com", "--password", "temporary-password-1")
	if st, _, _ := u.do("GET", "/admin/tenants", "", nil); st != 303 {
		t.Errorf("a session after set-password: %d, want 303", st)
	}
	if st, loc := newAdminClient(t, s).signIn("root@example.com", "temporary-password-1"); st != 303 || loc != "/admin/password" {
		t.Errorf("sign in with the set password: %d %s, want the password form", st, loc)
	}
	if _, err := s.cliErr("staff", "disable", "--email", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no staff user") {
		t.Errorf("unknown e-mail: %v", err)
	}
}
