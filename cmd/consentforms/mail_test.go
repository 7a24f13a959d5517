package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// smtpReceiver is a real SMTP server on loopback (go-smtp): it takes AUTH PLAIN with its
// login, answers each message's data with answer (0: accepted), and keeps what it accepted.
type smtpReceiver struct {
	Port       int
	user, pass string
	answer     atomic.Int32 // the SMTP code answered after the data; 0 accepts it
	attempts   atomic.Int64 // messages whose data was sent, accepted or not

	mu  sync.Mutex
	got []sentMail
}

// sentMail is one accepted message, decoded.
type sentMail struct {
	To     []string
	Header netmail.Header
	Text   string
}

func newSMTPReceiver(t *testing.T) *smtpReceiver {
	t.Helper()
	r := &smtpReceiver{user: "campaign", pass: "smtp-password-1"}
	s := smtp.NewServer(r)
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return r
}

func (r *smtpReceiver) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{r: r}, nil }

// mails returns what was accepted so far.
func (r *smtpReceiver) mails() []sentMail {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sentMail(nil), r.got...)
}

// await waits until n mails were accepted and returns them.
func (r *smtpReceiver) await(t *testing.T, n int) []sentMail {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if got := r.mails(); len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%d mails arrived within 15 s, want %d (attempts %d)", len(r.mails()), n, r.attempts.Load())
	return nil
}

type smtpSession struct {
	r      *smtpReceiver
	authed bool
	to     []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.r.user || pass != s.r.pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *smtpSession) Mail(string, *smtp.MailOptions) error {
	if !s.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(rd io.Reader) error {
	data, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	s.r.attempts.Add(1)
	if code := int(s.r.answer.Load()); code != 0 {
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: "answered " + strconv.Itoa(code) + " by the test"}
	}
	m, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return err
	}
	text, err := plainPart(m)
	if err != nil {
		return err
	}
	s.r.mu.Lock()
	s.r.got = append(s.r.got, sentMail{To: s.to, Header: m.Header, Text: text})
	s.r.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.to = nil }
func (s *smtpSession) Logout() error { return nil }

// plainPart is the text/plain part of m, its transfer encoding undone.
func plainPart(m *netmail.Message) (string, error) {
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, err := io.ReadAll(decodedBody(m.Header.Get("Content-Transfer-Encoding"), m.Body))
		return string(b), err
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain") {
			// multipart.Part undoes quoted-printable itself; base64 is left to decodedBody.
			b, err := io.ReadAll(decodedBody(p.Header.Get("Content-Transfer-Encoding"), p))
			return string(b), err
		}
	}
}

// subject is the mail's decoded Subject.
func (m sentMail) subject() string {
	s, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return m.Header.Get("Subject")
	}
	return s
}

// setSMTP points the tenant's mail at r with its login (the password through a file).
func setSMTP(t *testing.T, s *testServer, tenant string, r *smtpReceiver) map[string]any {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "smtp-password")
	if err := os.WriteFile(pw, []byte(r.pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return s.cli("tenant", "set-smtp", "--tenant", tenant, "--host", "127.0.0.1", "--port", strconv.Itoa(r.Port), "--tls", "none",
		"--user", r.user, "--password-file", pw, "--from", "Friends of the Forest <campaign@forest.example>", "--reply-to", "team@forest.example")
}

// decodedBody undoes a transfer encoding.
func decodedBody(enc string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}
