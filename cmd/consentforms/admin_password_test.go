package main

import (
	"regexp"
	"testing"
)

// TestAdminBrowserPassword: in a real browser, the first admin's generated password leads to
// the password form, which changes it; a wrong current password is explained; then the
// dashboard opens, and a staff member is disabled from the staff page.
func TestAdminBrowserPassword(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t, "CONSENTFORMS_ADMIN_PASSWORD=")
	m := regexp.MustCompile(`password:\s+(\S+)`).FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("no generated password printed: %q", s.stdout.String())
	}
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signIn("root@example.com", m[1]), 200)
	u.visible("password-required")
	u.fill("current", "not-the-password")
	u.fill("password", "a-new-password-1")
	u.fill("confirm", "a-new-password-1")
	wantStatus(t, "wrong current password", u.submit("password-submit"), 422)
	u.shot("password-wrong-current")
	u.fill("current", m[1])
	u.fill("password", "a-new-password-1")
	u.fill("confirm", "a-new-password-1")
	wantStatus(t, "change", u.submit("password-submit"), 200)
	u.visible("flash-success")

	tn := openTenant(s)
	s.cli("staff", "create", "--email", "sue@example.org", "--password", "sue-password-1", "--role", "support", "--tenant", tn)
	u.open("/admin/staff")
	wantStatus(t, "disable", u.submit("staff-disable"), 200)
	u.visible("flash-success")
	if got := u.text("staff-status"); got != "Disabled" {
		t.Errorf("status after disabling: %q", got)
	}
	u.shot("staff-disabled")
	wantStatus(t, "enable", u.submit("staff-enable"), 200)
	if got := u.text("staff-status"); got != "Active" {
		t.Errorf("status after enabling: %q", got)
	}
}
