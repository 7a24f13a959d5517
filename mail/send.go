package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/textproto"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one mail to one recipient.
type Message struct {
	// ID names the mail in logs and in Answer and becomes the local part of
	// its Message-ID: letters, digits, '_', '-', '+', and dots between them.
	ID      string
	To      string // "addr" or "Name <addr>"
	Subject string
	Text    string
	HTML    string            // optional; sent as the alternative to Text
	Headers map[string]string // extra headers, e.g. from UnsubscribeHeaders
}

// Outcome says what the caller should do with a mail after a Send.
type Outcome int

const (
	// Sent: the server took the mail (2xx after DATA).
	Sent Outcome = iota + 1
	// Retry: not taken, for now: a 4xx, a refused, lost or timed-out
	// connection, a failed TLS handshake, a cancelled context, or a Server
	// that fails Validate (its configuration may be fixed before the next
	// try).
	Retry
	// Final: the server refused for good (5xx, a failed AUTH included), or
	// the Message itself is not sendable; trying again cannot help.
	Final
)

func (o Outcome) String() string {
	switch o {
	case Sent:
		return "sent"
	case Retry:
		return "retry"
	case Final:
		return "final"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Result is what Send learned. Answer is fit for a log line: the addresses
// of the mail (and any other address-like text) are replaced by
// placeholders such as "<recipient>".
type Result struct {
	Outcome Outcome
	Answer  string // the server's reply, or the error
	Code    int    // the SMTP reply code, 0 when there was none
}

// DefaultTimeout bounds a Send whose timeout is not positive.
const DefaultTimeout = 30 * time.Second

// Send delivers m through srv in one SMTP session and classifies the
// outcome. timeout bounds the whole session, from the connect to the
// server's answer after DATA; ctx may end it sooner. Send never retries by
// itself: a durable queue is the caller's, and it decides from Outcome.
//
// A timeout after the mail's data went out can hide a delivery the server
// did complete; that is Retry, so a recipient may rarely get a mail twice,
// which SMTP cannot rule out.
func Send(ctx context.Context, srv Server, m Message, timeout time.Duration) Result {
	sc := newScrubber(srv, m)
	if err := srv.Validate(); err != nil {
		return Result{Outcome: Retry, Answer: sc.clean("invalid server: " + oneLine(err.Error()))}
	}
	msg, err := buildMsg(srv, m)
	if err != nil {
		return Result{Outcome: Final, Answer: "invalid message: " + err.Error()}
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client, err := newClient(ctx, srv, timeout)
	if err != nil {
		return Result{Outcome: Retry, Answer: sc.clean("mail client: " + oneLine(err.Error()))}
	}
	err = client.DialAndSendWithContext(ctx, msg)
	return classify(ctx, timeout, err, msg, sc)
}

// newClient configures go-mail for srv. The dialer is ours so that the
// session's context reaches past the connect: go-mail consults the
// context only while dialing, so the connection is closed when ctx ends,
// which unblocks any read or write. The dialer also does the implicit TLS
// handshake, since go-mail skips its own TLS dialer when given one.
func newClient(ctx context.Context, srv Server, timeout time.Duration) (*gomail.Client, error) {
	host := normalizeHost(srv.Host)
	addr := net.JoinHostPort(host, strconv.Itoa(srv.Port))
	tlsConf := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12, RootCAs: srv.rootCAs}

	dial := func(dctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		raw, err := d.DialContext(dctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		// Fires when the session ends for any reason; closing a
		// connection go-mail has already closed is harmless.
		context.AfterFunc(ctx, func() { _ = raw.Close() })
		if srv.TLS != TLSImplicit {
			return raw, nil
		}
		// A *tls.Conn, unwrapped, is how go-mail's SMTP client knows the
		// connection is encrypted (and so lets PLAIN through).
		tc := tls.Client(raw, tlsConf)
		if err := tc.HandshakeContext(dctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		return tc, nil
	}

	opts := []gomail.Option{
		gomail.WithPort(srv.Port),
		// go-mail's deadline on each step is only a backstop behind the
		// session's: later by a margin, so that a hang ends on ctx and
		// the Answer says it timed out (go-mail hides the i/o timeout
		// of a failed MAIL, RCPT or DATA behind its own error).
		gomail.WithTimeout(timeout + time.Second),
		gomail.WithDialContextFunc(dial),
		gomail.WithTLSConfig(tlsConf),
	}
	switch srv.TLS {
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if srv.User != "" {
		// PLAIN, else LOGIN, is what every submission server offers;
		// should a server offer neither, go-mail discovers a stronger one
		// (SCRAM, CRAM-MD5). go-mail's PLAIN and LOGIN refuse to run
		// without TLS except towards "localhost"/127.0.0.1/::1; "none"
		// is only ever loopback (Validate), so there they are told to
		// run unencrypted, which also covers other loopback addresses.
		mechs := []gomail.SMTPAuthType{gomail.SMTPAuthPlain, gomail.SMTPAuthLogin}
		if srv.TLS == TLSNone {
			mechs = []gomail.SMTPAuthType{gomail.SMTPAuthPlainNoEnc, gomail.SMTPAuthLoginNoEnc}
		}
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(mechs...),
			gomail.WithUsername(srv.User),
			gomail.WithPassword(srv.Password))
	}
	return gomail.NewClient(host, opts...)
}

var msgIDLocal = regexp.MustCompile(`^[A-Za-z0-9_+-]+(\.[A-Za-z0-9_+-]+)*$`)

// reservedHeaders are written from Message's and Server's fields or by
// go-mail itself; an extra header must not replace or duplicate them.
var reservedHeaders = map[string]bool{
	"from": true, "sender": true, "to": true, "cc": true, "bcc": true,
	"reply-to": true, "subject": true, "date": true, "message-id": true,
	"mime-version": true, "content-type": true, "content-transfer-encoding": true,
	"content-disposition": true, "return-path": true, "received": true,
	"dkim-signature": true,
}

// buildMsg turns m into a go-mail message. Its errors name the field,
// never its value.
func buildMsg(srv Server, m Message) (*gomail.Msg, error) {
	if m.ID == "" || len(m.ID) > 200 || !msgIDLocal.MatchString(m.ID) {
		return nil, errors.New("id: must be 1 to 200 letters, digits, '_', '-', '+', with dots between")
	}
	to, err := parseAddress(m.To)
	if err != nil {
		return nil, errors.New("to: not a valid address")
	}
	if strings.TrimSpace(m.Subject) == "" {
		return nil, errors.New("subject: must be set")
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("subject: must be one line")
	}
	if strings.TrimSpace(m.Text) == "" {
		return nil, errors.New("text: must be set")
	}
	from, err := parseAddress(srv.From)
	if err != nil {
		return nil, errors.New("from: not a valid address")
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(withASCIIDomain(from))
	msg.ToMailAddress(withASCIIDomain(to))
	if srv.ReplyTo != "" {
		rt, err := parseAddress(srv.ReplyTo)
		if err != nil {
			return nil, errors.New("reply_to: not a valid address")
		}
		msg.ReplyToMailAddress(withASCIIDomain(rt))
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.ID + "@" + domainOf(from))
	msg.SetDate()
	for name, value := range m.Headers {
		if err := checkHeader(name, value); err != nil {
			return nil, err
		}
		msg.SetGenHeader(gomail.Header(textproto.CanonicalMIMEHeaderKey(name)), value)
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// checkHeader keeps extra headers to one line of printable ASCII, since
// go-mail writes them as given: a line break would let a value add
// headers of its own.
func checkHeader(name, value string) error {
	if name == "" {
		return errors.New("headers: empty name")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' || c == ':' {
			return errors.New("headers: a name has a character a header name cannot have")
		}
	}
	if reservedHeaders[strings.ToLower(name)] {
		return fmt.Errorf("headers: %s is set from the message's own fields", textproto.CanonicalMIMEHeaderKey(name))
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c > '~' {
			return fmt.Errorf("headers: the value of %s must be one line of printable ASCII", textproto.CanonicalMIMEHeaderKey(name))
		}
	}
	return nil
}

// classify maps go-mail's result onto an Outcome. go-mail reports a failed
// MAIL, RCPT or DATA as a *SendError that carries the reply code but not
// the reply itself (its text has the server's words plus the recipients,
// which the scrubber removes); a failure while connecting, in STARTTLS or
// in AUTH comes through as the *textproto.Error of the reply, or as a
// network or TLS error with no code.
func classify(ctx context.Context, timeout time.Duration, err error, msg *gomail.Msg, sc scrubber) Result {
	if msg.IsDelivered() {
		// The mail is with the server even if the RSET or QUIT after it
		// failed; those errors are of no consequence to it.
		answer := msg.ServerResponse()
		if answer == "" {
			answer = "accepted"
		}
		return Result{Outcome: Sent, Answer: sc.clean(oneLine(answer)), Code: 250}
	}
	if err == nil {
		// Not reachable with one message: go-mail reports every failure.
		return Result{Outcome: Retry, Answer: "not delivered, no error reported"}
	}

	code := 0
	var se *gomail.SendError
	if errors.As(err, &se) {
		code = se.ErrorCode()
	}
	var te *textproto.Error
	if code == 0 && errors.As(err, &te) {
		code = te.Code
	}
	answer := sc.clean(oneLine(trimSendErrorTail(err.Error())))

	switch {
	case code >= 500 && code <= 599:
		return Result{Outcome: Final, Answer: answer, Code: code}
	case code >= 400 && code <= 499:
		return Result{Outcome: Retry, Answer: answer, Code: code}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		answer = "timed out after " + timeout.String() + ": " + answer
	case ctx.Err() != nil:
		answer = "cancelled: " + answer
	}
	return Result{Outcome: Retry, Answer: answer, Code: code}
}

// trimSendErrorTail drops what go-mail's SendError appends after the
// server's words: the recipients (scrubbed anyway) and the Message-ID,
// both redundant where the mail is named by its id.
func trimSendErrorTail(s string) string {
	for _, tail := range []string{", affected recipient(s): ", ", affected message ID: "} {
		if i := strings.Index(s, tail); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "; ")
	return strings.NewReplacer("\n", "; ", "\r", "; ").Replace(strings.TrimSpace(s))
}

// scrubber removes the mail's addresses and names from text meant for a
// log: servers often quote the recipient ("<ada@example.org>: mailbox
// unavailable"), and go-mail lists it in its errors.
type scrubber struct {
	replacer *strings.Replacer
}

// addrLike catches any address the known ones miss (another spelling, a
// forwarding target quoted by the server).
var addrLike = regexp.MustCompile(`[^\s<>()\[\]\\,;:"'@]+@[^\s<>()\[\]\\,;:"'@]+`)

func newScrubber(srv Server, m Message) scrubber {
	var pairs []string
	add := func(s, with string) {
		if s = strings.TrimSpace(s); len(s) >= 3 {
			pairs = append(pairs, s, with)
			if l := strings.ToLower(s); l != s {
				pairs = append(pairs, l, with)
			}
		}
	}
	addAddr := func(raw, with string) {
		add(raw, with)
		if a, err := mail.ParseAddress(raw); err == nil {
			add(a.Address, with)
			add(a.Name, "<name>")
		}
	}
	addAddr(m.To, "<recipient>")
	addAddr(srv.From, "<sender>")
	addAddr(srv.ReplyTo, "<reply-to>")
	if strings.Contains(srv.User, "@") {
		add(srv.User, "<user>")
	}
	return scrubber{replacer: strings.NewReplacer(pairs...)}
}

func (s scrubber) clean(text string) string {
	text = s.replacer.Replace(text)
	return addrLike.ReplaceAllString(text, "<address>")
}
