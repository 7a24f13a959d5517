package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite/sqlitetest"
)

// mailEnv is a server that polls its outbox often and retries soon, for the mail tests.
var mailEnv = []string{"CONSENTFORMS_WEBHOOK_BACKOFF=50ms", "CONSENTFORMS_WEBHOOK_POLL=20ms"}

// doiBody is a submission of petition by email whose e-mail consent waits for confirmation.
func doiBody(id, email string) map[string]any {
	return map[string]any{"form_id": "petition", "submission_id": id, "email": email, "first_name": "Ada",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "2y", "consent_to_general_contact_email": true}
}

// TestMailConfirmation: with a mail server set, a double-opt-in submission sends the
// confirmation itself, to the person's address, from the tenant's sender, in the form's
// language, with the absolute confirmation link and the one-click unsubscribe headers (RFC
// 8058); the link confirms, the one-click POST withdraws, and nothing logged names the address.
// The settings print no password; the password never reaches the store in the clear.
func TestMailConfirmation(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	out := setSMTP(t, s, tn, rcv)
	if out["set"] != true || out["host"] != "127.0.0.1" || out["password"] != nil || strings.Contains(toJSON(out), rcv.pass) {
		t.Fatalf("set-smtp printed %v", out)
	}
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email")
	submit(t, s, k, doiBody("m1", "ada@example.org"))

	m := rcv.await(t, 1)[0]
	if len(m.To) != 1 || m.To[0] != "ada@example.org" {
		t.Errorf("sent to %v", m.To)
	}
	if from := m.Header.Get("From"); !strings.Contains(from, "campaign@forest.example") || m.Header.Get("Reply-To") != "<team@forest.example>" && !strings.Contains(m.Header.Get("Reply-To"), "team@forest.example") {
		t.Errorf("From %q Reply-To %q", from, m.Header.Get("Reply-To"))
	}
	if !strings.HasPrefix(m.subject(), "Please confirm") || !strings.Contains(m.Text, "Hello Ada,") {
		t.Errorf("subject %q, text %q", m.subject(), m.Text)
	}
	confirm := pathOf(t, s, consentOf(recordRead(t, s, k, "m1"), "generalContactEmail")["confirmationUrl"])
	if !strings.Contains(m.Text, s.LinkBase+confirm) {
		t.Errorf("the mail lacks the absolute confirmation link %s:\n%s", s.LinkBase+confirm, m.Text)
	}
	unsub := strings.Trim(m.Header.Get("List-Unsubscribe"), "<>")
	if !strings.HasPrefix(unsub, s.LinkBase+"/p/") || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe %q, List-Unsubscribe-Post %q", m.Header.Get("List-Unsubscribe"), m.Header.Get("List-Unsubscribe-Post"))
	}
	if c := call(t, s, "POST", confirm, "", nil); c.Status != 200 {
		t.Fatalf("confirm: %d %s", c.Status, c.Body)
	}
	if got := consentOf(recordRead(t, s, k, "m1"), "generalContactEmail")["status"]; got != "granted" {
		t.Fatalf("after the mail's link: %v", got)
	}
	// The one-click unsubscribe, as a mail client posts it.
	oneClick := call(t, s, "POST", strings.TrimPrefix(unsub, s.LinkBase), "", "List-Unsubscribe=One-Click", "Content-Type: application/x-www-form-urlencoded")
	if oneClick.Status != 200 {
		t.Fatalf("one-click unsubscribe: %d %s", oneClick.Status, oneClick.Body)
	}
	if got := consentOf(recordRead(t, s, k, "m1"), "generalContactEmail")["status"]; got != "revoked" {
		t.Errorf("after the one-click unsubscribe: %v", got)
	}
	for _, where := range []string{s.stdout.String(), s.stderr.String()} {
		if strings.Contains(where, "ada@example.org") || strings.Contains(where, rcv.pass) {
			t.Errorf("the log names the recipient or the password:\n%s", where)
		}
	}
	if strings.Contains(toJSON(auditOf(t, s, tn, "")), "forest.example") {
		t.Error("the audit log names an address of the mail settings")
	}
}

// TestMailGermanAndThankYou: a German form's confirmation is in German; a form with the
// thank-you mail on thanks each submission with an address, one without sends none.
func TestMailGermanAndThankYou(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	setSMTP(t, s, tn, rcv)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--language", "de")
	s.cli("form", "create", "--tenant", tn, "--form-id", "thanks")
	s.cli("form", "update", "--tenant", tn, "--form-id", "thanks", "--thank-you-mail", "on")
	s.cli("form", "create", "--tenant", tn, "--form-id", "quiet")
	submit(t, s, k, doiBody("de1", "ute@example.org"))
	quiet := doiBody("q1", "quiet@example.org")
	quiet["form_id"] = "quiet"
	submit(t, s, k, quiet)
	thanks := doiBody("t1", "tom@example.org")
	thanks["form_id"] = "thanks"
	submit(t, s, k, thanks)
	got := rcv.await(t, 2)
	time.Sleep(300 * time.Millisecond) // a mail the quiet form would wrongly send arrives by now
	by := map[string]sentMail{}
	for _, m := range rcv.mails() {
		by[m.To[0]] = m
	}
	if de, ok := by["ute@example.org"]; !ok || !strings.HasPrefix(de.subject(), "Bitte bestätigen Sie") || !strings.Contains(de.Text, "Hallo Ada,") {
		t.Errorf("the German confirmation: %q %q", de.subject(), de.Text)
	}
	if ty, ok := by["tom@example.org"]; !ok || !strings.HasPrefix(ty.subject(), "Thank you") {
		t.Errorf("the thank-you: %+v", ty)
	}
	if _, ok := by["quiet@example.org"]; ok || len(rcv.mails()) != len(got) {
		t.Errorf("mails sent: %d; the quiet form sent one: %v", len(rcv.mails()), ok)
	}
}

// TestMailRetriesAndFinal: a 4xx answer is retried until the server takes the mail, which
// arrives once; a 5xx answer is final: the mail is not tried again.
func TestMailRetriesAndFinal(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	setSMTP(t, s, tn, rcv)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email")
	rcv.answer.Store(451)
	submit(t, s, k, doiBody("r1", "retry@example.org"))
	eventually(t, func() bool { return rcv.attempts.Load() >= 2 })
	rcv.answer.Store(0)
	rcv.await(t, 1)
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.mails()); n != 1 {
		t.Errorf("the retried mail arrived %d times", n)
	}
	rcv.answer.Store(550)
	before := rcv.attempts.Load()
	submit(t, s, k, doiBody("r2", "final@example.org"))
	eventually(t, func() bool { return rcv.attempts.Load() > before })
	time.Sleep(500 * time.Millisecond) // ten retry delays
	if n := rcv.attempts.Load() - before; n != 1 {
		t.Errorf("a mail answered 550 was tried %d times", n)
	}
}

// TestMailErasedBeforeSending: a person erased while their confirmation waits for a retry is
// never mailed: the address is read when the mail goes, and the erasure took it.
func TestMailErasedBeforeSending(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	setSMTP(t, s, tn, rcv)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email")
	rcv.answer.Store(451)
	submit(t, s, k, doiBody("e1", "gone@example.org"))
	eventually(t, func() bool { return rcv.attempts.Load() >= 1 })
	if c := erase(t, s, k, map[string]any{"email": "gone@example.org"}); c.FormSubmissions != 1 {
		t.Fatalf("erasure: %+v", c)
	}
	// An attempt that read the address just before the erasure may still be talking to the
	// server; it is answered 451 too. Then no attempt is made at all: six retry delays pass.
	time.Sleep(300 * time.Millisecond)
	settled := rcv.attempts.Load()
	rcv.answer.Store(0)
	time.Sleep(500 * time.Millisecond) // ten retry delays
	if got := rcv.mails(); len(got) != 0 {
		t.Errorf("an erased person was mailed: %v", got[0].To)
	}
	if n := rcv.attempts.Load(); n != settled {
		t.Errorf("%d attempts to mail an erased person after the erasure settled", n-settled)
	}
}

// TestMailResend: staff have a pending confirmation mailed again (202, the same link, audited);
// a submission made before the mail server was set is mailed on its first resend; once
// confirmed, a resend is 409 nothing_pending; without a mail server 409 no_mail_server; an
// unknown id 404.
func TestMailResend(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn, other := openTenant(s), openTenant(s)
	k, ko := s.key(tn, "all"), s.key(other, "all")
	for _, x := range []string{tn, other} {
		s.cli("form", "update", "--tenant", x, "--form-id", "petition", "--double-opt-in", "email")
	}
	resend := func(key, id string) response {
		return call(t, s, "POST", "/api/v1/forms/submissions/"+id+"/resend-confirmation", key, nil)
	}
	submit(t, s, k, doiBody("early", "early@example.org"))
	setSMTP(t, s, tn, rcv)
	if r := resend(k, "early"); r.Status != 202 || str(r.JSON(t), "submissionId") != "early" || r.JSON(t)["resent"] != true {
		t.Fatalf("resend of a submission made before the mail server: %d %s", r.Status, r.Body)
	}
	first := rcv.await(t, 1)[0]
	if first.To[0] != "early@example.org" {
		t.Errorf("sent to %v", first.To)
	}
	if r := resend(k, "early"); r.Status != 202 {
		t.Fatalf("second resend: %d %s", r.Status, r.Body)
	}
	again := rcv.await(t, 2)[1]
	confirm := pathOf(t, s, consentOf(recordRead(t, s, k, "early"), "generalContactEmail")["confirmationUrl"])
	if !strings.Contains(first.Text, s.LinkBase+confirm) || !strings.Contains(again.Text, s.LinkBase+confirm) {
		t.Errorf("the resent mail does not carry the same link %s", confirm)
	}
	if n := len(auditOf(t, s, tn, "consent.confirmation_resent")); n != 2 {
		t.Errorf("%d consent.confirmation_resent entries, want 2", n)
	}
	if c := call(t, s, "POST", confirm, "", nil); c.Status != 200 {
		t.Fatalf("confirm: %d", c.Status)
	}
	if r := resend(k, "early"); r.Status != 409 || str(r.JSON(t), "code") != "nothing_pending" {
		t.Errorf("resend after confirming: %d %s", r.Status, r.Body)
	}
	submit(t, s, ko, doiBody("o1", "other@example.org"))
	if r := resend(ko, "o1"); r.Status != 409 || str(r.JSON(t), "code") != "no_mail_server" {
		t.Errorf("resend without a mail server: %d %s", r.Status, r.Body)
	}
	if r := resend(k, "o1"); r.Status != 404 {
		t.Errorf("resend of another tenant's id: %d %s", r.Status, r.Body)
	}
}

// silentSMTP is a mail server that takes connections and never answers.
func silentSMTP(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// TestMailHangingServerDelaysNoOtherTenant: tenant A's mail server takes connections and never
// answers; while A's confirmations hang (each up to the 30 s bound of a session), tenant B's
// arrives (the receiver waits 15 s at most).
func TestMailHangingServerDelaysNoOtherTenant(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	a, b := openTenant(s), openTenant(s)
	ka, kb := s.key(a, "all"), s.key(b, "all")
	hang := &smtpReceiver{Port: silentSMTP(t), user: "campaign", pass: "smtp-password-1"}
	setSMTP(t, s, a, hang)
	setSMTP(t, s, b, rcv)
	for _, x := range []string{a, b} {
		s.cli("form", "update", "--tenant", x, "--form-id", "petition", "--double-opt-in", "email")
	}
	for i := range 6 {
		submit(t, s, ka, doiBody(fmt.Sprintf("a%d", i), fmt.Sprintf("a%d@example.org", i)))
	}
	time.Sleep(200 * time.Millisecond) // A's attempts now hang
	start := time.Now()
	submit(t, s, kb, doiBody("b1", "b1@example.org"))
	rcv.await(t, 1)
	// Not a timing check: A's attempts each hang for the 30 s bound of a mail's session, so B's
	// mail arriving at all before those end is what shows it did not wait behind them.
	t.Logf("tenant B's confirmation arrived %v after its submission, with tenant A's mail server hanging", time.Since(start).Round(time.Millisecond))
}

// TestMailSurvivesKill: mails queued when the server is killed (SIGKILL) are sent after it
// starts again: none is lost.
func TestMailSurvivesKill(t *testing.T) {
	if mongoURI != "" {
		t.Skip("the queued mail is the outbox's: the crash tests of the outbox run on both stores; this one on the embedded store")
	}
	t.Parallel()
	rcv := newSMTPReceiver(t)
	dir := t.TempDir()
	if err := sqlitetest.Seed(dir); err != nil {
		t.Fatal(err)
	}
	tn, key := dirTenant(t, dir)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(rcv.pass), 0o600); err != nil {
		t.Fatal(err)
	}
	dirCLI(t, dir, "tenant", "set-smtp", "--tenant", tn, "--host", "127.0.0.1", "--port", strconv.Itoa(rcv.Port), "--tls", "none",
		"--user", rcv.user, "--password-file", pw, "--from", "Forest <campaign@forest.example>")
	dirCLI(t, dir, "form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email")
	rcv.answer.Store(451)
	c := startChild(t, dir, mailEnv...)
	for i := range 5 {
		body, _ := json.Marshal(doiBody(fmt.Sprintf("k%d", i), fmt.Sprintf("k%d@example.org", i)))
		if code, _, b := c.post(t, "/api/v1/forms/accept-submission", key, string(body)); code != 200 {
			t.Fatalf("submit: %d %s", code, b)
		}
	}
	eventually(t, func() bool { return rcv.attempts.Load() >= 5 })
	_ = c.cmd.Process.Kill()
	<-c.exited
	rcv.answer.Store(0)
	startChild(t, dir, mailEnv...)
	got := rcv.await(t, 5)
	to := map[string]bool{}
	for _, m := range got {
		to[m.To[0]] = true
	}
	if len(to) != 5 {
		t.Errorf("after the kill %d distinct people were mailed, want 5: %v", len(to), to)
	}
}

// TestMailReminder: a confirmation still waiting at the form's remind-after is mailed once
// more, with the same link; a person who confirmed first gets no reminder, and a form with
// --remind-after none sends none. form update prints the setting in force.
func TestMailReminder(t *testing.T) {
	t.Parallel()
	rcv := newSMTPReceiver(t)
	s := startServer(t, mailEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	setSMTP(t, s, tn, rcv)
	if out := s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email"); out["remindAfter"] != "half the confirmation period" {
		t.Errorf("the default reminder reads %v", out["remindAfter"])
	}
	if out := s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--confirm-within", "8s", "--remind-after", "3s"); out["remindAfter"] != "3s" {
		t.Errorf("form update printed %v", out)
	}
	if _, err := s.cliErr("form", "update", "--tenant", tn, "--form-id", "petition", "--remind-after", "soon"); err == nil {
		t.Error("--remind-after soon was taken")
	}
	s.cli("form", "create", "--tenant", tn, "--form-id", "quiet")
	s.cli("form", "update", "--tenant", tn, "--form-id", "quiet", "--double-opt-in", "email", "--confirm-within", "8s", "--remind-after", "none")
	submit(t, s, k, doiBody("late", "late@example.org"))
	submit(t, s, k, doiBody("quick", "quick@example.org"))
	quiet := doiBody("q1", "quiet@example.org")
	quiet["form_id"] = "quiet"
	submit(t, s, k, quiet)
	rcv.await(t, 3)
	confirm := pathOf(t, s, consentOf(recordRead(t, s, k, "quick"), "generalContactEmail")["confirmationUrl"])
	if c := call(t, s, "POST", confirm, "", nil); c.Status != 200 {
		t.Fatalf("confirm: %d %s", c.Status, c.Body)
	}
	got := rcv.await(t, 4)
	time.Sleep(1500 * time.Millisecond) // a reminder sent wrongly arrives by now
	by := map[string][]sentMail{}
	for _, m := range rcv.mails() {
		by[m.To[0]] = append(by[m.To[0]], m)
	}
	late := by["late@example.org"]
	if len(late) != 2 || !strings.HasPrefix(late[1].subject(), "Reminder") {
		t.Fatalf("the person who did not confirm got %d mails (%v)", len(late), got)
	}
	link := pathOf(t, s, consentOf(recordRead(t, s, k, "late"), "generalContactEmail")["confirmationUrl"])
	if !strings.Contains(late[1].Text, s.LinkBase+link) || late[1].Header.Get("List-Unsubscribe-Post") == "" {
		t.Errorf("the reminder lacks the link or the one-click headers:\n%s", late[1].Text)
	}
	if n := len(by["quick@example.org"]); n != 1 {
		t.Errorf("the person who confirmed got %d mails", n)
	}
	if n := len(by["quiet@example.org"]); n != 1 {
		t.Errorf("a form without reminders sent %d mails", n)
	}
}

// TestFormIntervalsAtLeastAMinute: a confirmation period or a reminder under one minute is
// refused, naming its flag (exit 1), and nothing changes; one minute is taken.
func TestFormIntervalsAtLeastAMinute(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CONSENTFORMS_TEST_SHORT_INTERVALS=")
	tn := openTenant(s)
	for _, flag := range []string{"--confirm-within", "--remind-after"} {
		if _, err := s.cliErr("form", "update", "--tenant", tn, "--form-id", "petition", flag, "30s"); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s 30s: %v", flag, err)
		}
	}
	out := s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--confirm-within", "PT1M", "--remind-after", "1m")
	if out["confirmWithin"] != "PT1M" || out["remindAfter"] != "1m" {
		t.Errorf("one minute: %v", out)
	}
}
