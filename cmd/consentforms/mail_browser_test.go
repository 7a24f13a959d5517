package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMailServerAdminBrowser: a tenant admin sets the mail server on the webhooks page (a
// refused sender shown again with why, nothing saved), the page then shows the host and never
// the password, and "Send test mail" shows the server's answer — a 250 when it took the mail,
// the refusal when it answers 550 — and the test mail arrives.
func TestMailServerAdminBrowser(t *testing.T) {
	requireChromium(t)
	rcv := newSMTPReceiver(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "webhooks", u.open("/admin/webhooks"), 200)
	if got := u.text("mail-server-status"); got != "Not set" {
		t.Errorf("status before %q", got)
	}
	u.fill("host", "127.0.0.1")
	u.fill("port", strconv.Itoa(rcv.Port))
	u.do(chromedp.SetValue(sel("mail-tls"), "none"))
	u.fill("user", rcv.user)
	u.fill("password", rcv.pass)
	u.fill("from", "not an address")
	wantStatus(t, "refused", u.submit("mail-server-save"), 422)
	if !strings.Contains(u.text("mail-server"), "must be an address") {
		t.Errorf("the refusal: %s", u.text("mail-server"))
	}
	u.fill("password", rcv.pass)
	u.fill("from", "Friends of the Forest <campaign@forest.example>")
	wantStatus(t, "saved", u.submit("mail-server-save"), 200)
	status := u.text("mail-server-status")
	if !strings.Contains(status, "127.0.0.1:"+strconv.Itoa(rcv.Port)) || !strings.Contains(status, "campaign@forest.example") {
		t.Errorf("status after %q", status)
	}
	if page := u.pageText(); strings.Contains(page, rcv.pass) {
		t.Error("the page shows the password")
	}
	u.shot("mail-server")
	u.fill("to", "lead@example.org")
	wantStatus(t, "test mail", u.submit("mail-test-send"), 200)
	if got := u.text("mail-test-result"); !strings.HasPrefix(got, "The server took the test mail: 250") {
		t.Errorf("test result %q", got)
	}
	if m := rcv.await(t, 1)[0]; m.To[0] != "lead@example.org" || !strings.Contains(m.subject(), "Test mail") {
		t.Errorf("the test mail: %v %q", m.To, m.subject())
	}
	rcv.answer.Store(550)
	u.fill("to", "lead@example.org")
	wantStatus(t, "refused test mail", u.submit("mail-test-send"), 200)
	if got := u.text("mail-test-result"); !strings.Contains(got, "not taken") || !strings.Contains(got, "550") {
		t.Errorf("refused test result %q", got)
	}
	u.shot("mail-server-refused")
	if strings.Contains(s.stderr.String()+s.stdout.String(), "lead@example.org") {
		t.Error("the log names the test mail's recipient")
	}
}
