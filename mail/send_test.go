package mail

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

const (
	rcptAddr = "ada@example.org"
	prefsURL = "https://forms.example/p/abc?t=1&x=2"
)

func testMessage() Message {
	return Message{
		ID:      "m-42.1",
		To:      "Ada Lovelace <" + rcptAddr + ">",
		Subject: "Bestätigen Sie Ihre Einwilligung – „Newsletter“",
		Text:    "Hallo Ada,\n\nbitte bestätigen Sie: https://forms.example/c/xyz\n",
		HTML:    "<p>Hallo Ada,</p><p><a href=\"https://forms.example/c/xyz\">bestätigen</a></p>",
		Headers: UnsubscribeHeaders(prefsURL),
	}
}

// assertScrubbed fails when the Answer could put an address or a name in
// a log line.
func assertScrubbed(t *testing.T, r Result) {
	t.Helper()
	low := strings.ToLower(r.Answer)
	for _, bad := range []string{"@", "ada", "lovelace", "noreply", "beispiel.de"} {
		if strings.Contains(low, bad) {
			t.Errorf("Answer %q contains %q", r.Answer, bad)
		}
	}
}

func TestSendDelivers(t *testing.T) {
	t.Parallel()
	be := newBackend()
	be.user, be.pass = "mailer", "s3cret pass"
	srv := startServer(t, be, plainOnly)
	srv.ReplyTo = "Hilfe <hilfe@beispiel.de>"

	r := Send(context.Background(), srv, testMessage(), 5*time.Second)
	if r.Outcome != Sent || r.Code != 250 {
		t.Fatalf("Send = %+v, want Sent 250", r)
	}
	assertScrubbed(t, r)

	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("received %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if got.From != "noreply@beispiel.de" || len(got.To) != 1 || got.To[0] != rcptAddr {
		t.Errorf("envelope from %q to %q", got.From, got.To)
	}
	pm, err := mail.ReadMessage(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	h := pm.Header

	rawSubject := h.Get("Subject")
	if !strings.HasPrefix(strings.ToLower(rawSubject), "=?utf-8?") {
		t.Errorf("Subject %q is not an RFC 2047 encoded word", rawSubject)
	}
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(rawSubject)
	if err != nil || subject != testMessage().Subject {
		t.Errorf("Subject decodes to %q (%v), want %q", subject, err, testMessage().Subject)
	}
	if from, err := mail.ParseAddress(h.Get("From")); err != nil || from.Name != "Beispiel GmbH" || from.Address != "noreply@beispiel.de" {
		t.Errorf("From %q: %+v %v", h.Get("From"), from, err)
	}
	if to, err := mail.ParseAddress(h.Get("To")); err != nil || to.Name != "Ada Lovelace" || to.Address != rcptAddr {
		t.Errorf("To %q: %+v %v", h.Get("To"), to, err)
	}
	if rt, err := mail.ParseAddress(h.Get("Reply-To")); err != nil || rt.Name != "Hilfe" || rt.Address != "hilfe@beispiel.de" {
		t.Errorf("Reply-To %q: %+v %v", h.Get("Reply-To"), rt, err)
	}
	if id := h.Get("Message-Id"); id != "<m-42.1@beispiel.de>" {
		t.Errorf("Message-ID %q", id)
	}
	if d, err := h.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date %q: %v", h.Get("Date"), err)
	}
	if v := h.Get("List-Unsubscribe"); v != "<"+prefsURL+">" {
		t.Errorf("List-Unsubscribe %q", v)
	}
	if v := h.Get("List-Unsubscribe-Post"); v != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post %q", v)
	}
	if ua := h.Get("X-Mailer") + h.Get("User-Agent"); ua != "" {
		t.Errorf("library's user agent sent: %q", ua)
	}

	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
	}
	parts := map[string]string{}
	mr := multipart.NewReader(pm.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p) // multipart undoes quoted-printable
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[ct] = string(body)
	}
	if !strings.Contains(parts["text/plain"], "bitte bestätigen Sie: https://forms.example/c/xyz") {
		t.Errorf("text part %q", parts["text/plain"])
	}
	if !strings.Contains(parts["text/html"], `<a href="https://forms.example/c/xyz">bestätigen</a>`) {
		t.Errorf("html part %q", parts["text/html"])
	}
}

func TestSendTextOnly(t *testing.T) {
	t.Parallel()
	be := newBackend()
	srv := startServer(t, be, plainOnly)
	m := testMessage()
	m.HTML, m.Headers = "", nil
	if r := Send(context.Background(), srv, m, 5*time.Second); r.Outcome != Sent {
		t.Fatalf("Send = %+v", r)
	}
	pm, err := mail.ReadMessage(bytes.NewReader(be.messages()[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if ct := pm.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || !strings.Contains(strings.ToLower(ct), "utf-8") {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestSendIDNDomains(t *testing.T) {
	t.Parallel()
	be := newBackend()
	srv := startServer(t, be, plainOnly)
	srv.From = "Jörg <info@müller.de>"
	m := testMessage()
	m.To = "ada@bücher.example"
	if r := Send(context.Background(), srv, m, 5*time.Second); r.Outcome != Sent {
		t.Fatalf("Send = %+v", r)
	}
	got := be.messages()[0]
	if got.From != "info@xn--mller-kva.de" || got.To[0] != "ada@xn--bcher-kva.example" {
		t.Errorf("envelope from %q to %q, want punycode domains", got.From, got.To)
	}
	pm, err := mail.ReadMessage(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	if id := pm.Header.Get("Message-Id"); id != "<m-42.1@xn--mller-kva.de>" {
		t.Errorf("Message-ID %q", id)
	}
	if from, err := pm.Header.AddressList("From"); err != nil || from[0].Name != "Jörg" {
		t.Errorf("From %q: %v", pm.Header.Get("From"), err)
	}
}

func TestSendReplies(t *testing.T) {
	t.Parallel()
	rejected := "<" + rcptAddr + ">: Recipient address rejected: mailbox unavailable"
	cases := []struct {
		name    string
		rcpt    *smtp.SMTPError
		data    *smtp.SMTPError
		outcome Outcome
		code    int
		answer  string
	}{
		{"rcpt 450", &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 2, 1}, Message: "Mailbox busy, try later"}, nil, Retry, 450, "Mailbox busy, try later"},
		{"rcpt 550", &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: rejected}, nil, Final, 550, "Recipient address rejected: mailbox unavailable"},
		{"data 421", nil, &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Service shutting down"}, Retry, 421, "Service shutting down"},
		{"data 554", nil, &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Message rejected as spam for " + rcptAddr}, Final, 554, "Message rejected as spam for <recipient>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			be := newBackend()
			be.rcptErr, be.dataErr = tc.rcpt, tc.data
			srv := startServer(t, be, plainOnly)
			r := Send(context.Background(), srv, testMessage(), 5*time.Second)
			if r.Outcome != tc.outcome || r.Code != tc.code {
				t.Errorf("Send = %+v, want %v %d", r, tc.outcome, tc.code)
			}
			if !strings.Contains(r.Answer, tc.answer) {
				t.Errorf("Answer %q lacks %q", r.Answer, tc.answer)
			}
			assertScrubbed(t, r)
			if n := len(be.messages()); n != 0 {
				t.Errorf("server kept %d messages", n)
			}
		})
	}
}

func TestSendDroppedInData(t *testing.T) {
	t.Parallel()
	be := newBackend()
	be.dropData = true
	srv := startServer(t, be, plainOnly)
	r := Send(context.Background(), srv, testMessage(), 5*time.Second)
	if r.Outcome != Retry || r.Code != 0 || r.Answer == "" {
		t.Errorf("Send = %+v, want Retry without a code", r)
	}
	assertScrubbed(t, r)
}

func TestSendHangs(t *testing.T) {
	t.Parallel()
	hangData := newBackend()
	hangData.hangData = true
	for name, srv := range map[string]Server{
		"before greeting": silentListener(t),
		"after data":      startServer(t, hangData, plainOnly),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const timeout = time.Second
			start := time.Now()
			r := Send(context.Background(), srv, testMessage(), timeout)
			took := time.Since(start)
			if r.Outcome != Retry || !strings.Contains(r.Answer, "timed out after 1s") {
				t.Errorf("Send = %+v, want Retry on a timeout", r)
			}
			if took > timeout+time.Second {
				t.Errorf("Send took %v with a timeout of %v", took, timeout)
			}
			assertScrubbed(t, r)
		})
	}
}

func TestSendCancelled(t *testing.T) {
	t.Parallel()
	srv := silentListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	r := Send(ctx, srv, testMessage(), 10*time.Second)
	if r.Outcome != Retry || !strings.HasPrefix(r.Answer, "cancelled") {
		t.Errorf("Send = %+v, want Retry, cancelled", r)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Send took %v after a cancel at 100ms", took)
	}
}

func TestSendRefused(t *testing.T) {
	t.Parallel()
	r := Send(context.Background(), refusedServer(t), testMessage(), 5*time.Second)
	if r.Outcome != Retry || r.Code != 0 || !strings.Contains(r.Answer, "refused") {
		t.Errorf("Send = %+v, want Retry, refused", r)
	}
}

func TestSendAuth(t *testing.T) {
	t.Parallel()
	be := newBackend()
	be.user, be.pass = "mailer", "right"
	srv := startServer(t, be, plainOnly)

	wrong := srv
	wrong.Password = "wrong"
	r := Send(context.Background(), wrong, testMessage(), 5*time.Second)
	if r.Outcome != Final || r.Code != 535 || !strings.Contains(r.Answer, "Authentication credentials invalid") {
		t.Errorf("wrong password: Send = %+v, want Final 535", r)
	}
	assertScrubbed(t, r)
	if strings.Contains(r.Answer, "wrong") {
		t.Errorf("Answer %q has the password", r.Answer)
	}

	// A login that is an address is scrubbed too.
	be2 := newBackend()
	be2.user, be2.pass = "mailer@beispiel.de", "right"
	srv2 := startServer(t, be2, plainOnly)
	srv2.Password = "wrong"
	r = Send(context.Background(), srv2, testMessage(), 5*time.Second)
	if r.Outcome != Final || r.Code != 535 {
		t.Errorf("Send = %+v, want Final 535", r)
	}
	assertScrubbed(t, r)

	none := srv
	none.User, none.Password = "", ""
	r = Send(context.Background(), none, testMessage(), 5*time.Second)
	if r.Outcome != Final || r.Code != 530 {
		t.Errorf("no login: Send = %+v, want Final 530", r)
	}
}

func TestSendTLS(t *testing.T) {
	t.Parallel()
	for name, mode := range map[string]serverTLS{"starttls": startTLS, "implicit": implicitTLS} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			be := newBackend()
			be.user, be.pass = "mailer", "s3cret"
			srv := startServer(t, be, mode)
			r := Send(context.Background(), srv, testMessage(), 5*time.Second)
			if r.Outcome != Sent {
				t.Fatalf("Send = %+v, want Sent", r)
			}
			if msgs := be.messages(); len(msgs) != 1 || !msgs[0].TLS {
				t.Errorf("received %+v, want one message over TLS", msgs)
			}

			// The certificate is checked: without the test root it is
			// unknown, and that is worth another try (it may be renewed).
			untrusted := srv
			untrusted.rootCAs = nil
			r = Send(context.Background(), untrusted, testMessage(), 5*time.Second)
			if r.Outcome != Retry || !strings.Contains(r.Answer, "certificate") {
				t.Errorf("untrusted certificate: Send = %+v, want Retry", r)
			}
			if n := len(be.messages()); n != 1 {
				t.Errorf("server has %d messages after the untrusted try", n)
			}
		})
	}
}

func TestSendStartTLSRequired(t *testing.T) {
	t.Parallel()
	srv := startServer(t, newBackend(), plainOnly)
	srv.TLS = TLSStartTLS
	r := Send(context.Background(), srv, testMessage(), 5*time.Second)
	if r.Outcome != Retry || !strings.Contains(r.Answer, "STARTTLS") {
		t.Errorf("Send = %+v, want Retry for a server without STARTTLS", r)
	}
}

func TestSendInvalidInput(t *testing.T) {
	t.Parallel()
	be := newBackend()
	srv := startServer(t, be, plainOnly)
	cases := map[string]func(*Message){
		"no id":             func(m *Message) { m.ID = "" },
		"id with a space":   func(m *Message) { m.ID = "a b" },
		"bad to":            func(m *Message) { m.To = "ada at example.org" },
		"two recipients":    func(m *Message) { m.To = rcptAddr + ", grace@example.org" },
		"no subject":        func(m *Message) { m.Subject = " " },
		"subject two lines": func(m *Message) { m.Subject = "a\r\nBcc: x@example.org" },
		"no text":           func(m *Message) { m.Text = "" },
		"header injection":  func(m *Message) { m.Headers = map[string]string{"X-A": "1\r\nBcc: x@example.org"} },
		"reserved header":   func(m *Message) { m.Headers = map[string]string{"bcc": "x@example.org"} },
		"bad header name":   func(m *Message) { m.Headers = map[string]string{"X A": "1"} },
	}
	for name, change := range cases {
		m := testMessage()
		change(&m)
		r := Send(context.Background(), srv, m, 5*time.Second)
		if r.Outcome != Final || !strings.HasPrefix(r.Answer, "invalid message: ") {
			t.Errorf("%s: Send = %+v, want Final, invalid message", name, r)
		}
		if strings.Contains(r.Answer, "@") {
			t.Errorf("%s: Answer %q has an address", name, r.Answer)
		}
	}

	bad := srv
	bad.Host = "mail.example.org" // "none" is loopback only
	r := Send(context.Background(), bad, testMessage(), 5*time.Second)
	if r.Outcome != Retry || !strings.Contains(r.Answer, "tls:") {
		t.Errorf("invalid server: Send = %+v, want Retry naming tls", r)
	}
	if n := len(be.messages()); n != 0 {
		t.Errorf("server got %d messages", n)
	}
}

func TestScrubber(t *testing.T) {
	sc := newScrubber(Server{From: "Org <Info@Org.example>", User: "login@org.example"}, Message{To: "Grace Hopper <Grace@Example.org>"})
	in := "550 <grace@example.org> and Grace@Example.org (Grace Hopper), from info@org.example, user login@org.example, other bob@elsewhere.example"
	got := sc.clean(in)
	want := "550 <<recipient>> and <recipient> (<name>), from <sender>, user <user>, other <address>"
	if got != want {
		t.Errorf("clean:\n got %q\nwant %q", got, want)
	}
}
