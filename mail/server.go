package mail

import (
	"crypto/x509"
	"errors"
	"net"
	"net/mail"
	"strings"

	"golang.org/x/net/idna"
)

// The TLS modes a Server accepts.
const (
	// TLSStartTLS connects in plain text and upgrades with STARTTLS before
	// anything else is said; a server that does not offer STARTTLS is not
	// used (no silent downgrade).
	TLSStartTLS = "starttls"
	// TLSImplicit speaks TLS from the first byte (SMTPS, usually port 465).
	TLSImplicit = "implicit"
	// TLSNone sends in plain text. It is accepted only towards a loopback
	// host, where no network sees the password or the mail.
	TLSNone = "none"
)

// Server is a tenant's outgoing mail server and the sender it sends as.
type Server struct {
	Host     string
	Port     int
	TLS      string // TLSStartTLS, TLSImplicit or TLSNone
	User     string // empty: no AUTH
	Password string
	// From is the sender, "addr" or "Name <addr>"; its domain also names
	// the Message-ID.
	From string
	// ReplyTo is optional, a single address.
	ReplyTo string

	// rootCAs replaces the system roots for certificate checks. Tests set
	// it to trust a certificate they made; it is unexported so that no
	// configuration can weaken the check.
	rootCAs *x509.CertPool
}

// FieldError names the field of a Server (or a Template) that is wrong,
// so that a CLI or a form can point at it. Msg never repeats the value:
// it may be an address, which must not reach a log.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks every field and returns all problems at once, joined
// (errors.As finds each *FieldError), or nil.
func (s Server) Validate() error {
	var errs []error
	add := func(field, msg string) { errs = append(errs, &FieldError{Field: field, Msg: msg}) }

	host := normalizeHost(s.Host)
	switch {
	case host == "":
		add("host", "must be set")
	case !validHost(host):
		add("host", "must be a host name or an IP address")
	}
	if s.Port < 1 || s.Port > 65535 {
		add("port", "must be between 1 and 65535")
	}
	switch s.TLS {
	case TLSStartTLS, TLSImplicit:
	case TLSNone:
		if host != "" && !isLoopback(host) {
			add("tls", `"none" is allowed only for a loopback host (localhost, 127.0.0.1, ::1); use "starttls" or "implicit"`)
		}
	default:
		add("tls", `must be one of "starttls", "implicit", "none"`)
	}
	if s.Password != "" && s.User == "" {
		add("user", "must be set when a password is set")
	}
	if s.From == "" {
		add("from", "must be set")
	} else if _, err := parseAddress(s.From); err != nil {
		add("from", "must be an address, optionally with a name: Name <addr>")
	}
	if s.ReplyTo != "" {
		if _, err := parseAddress(s.ReplyTo); err != nil {
			add("reply_to", "must be an address, optionally with a name: Name <addr>")
		}
	}
	return errors.Join(errs...)
}

// parseAddress parses a single address and checks that its domain can be
// written in ASCII, as the Message-ID and SMTP without SMTPUTF8 need. The
// error never contains the input: net/mail's errors may quote it.
func parseAddress(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, errInvalidAddress
	}
	at := strings.LastIndexByte(a.Address, '@')
	if at <= 0 || at == len(a.Address)-1 {
		return nil, errInvalidAddress
	}
	if _, err := idna.Lookup.ToASCII(a.Address[at+1:]); err != nil {
		return nil, errInvalidAddress
	}
	return a, nil
}

var errInvalidAddress = errors.New("not a valid address")

// domainOf returns the ASCII (punycode) domain of a parsed address.
func domainOf(a *mail.Address) string {
	d := a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	if ascii, err := idna.Lookup.ToASCII(d); err == nil {
		return ascii
	}
	return d
}

// withASCIIDomain writes an address's domain in punycode, which every
// server takes; a UTF-8 domain needs SMTPUTF8, which many lack.
func withASCIIDomain(a *mail.Address) *mail.Address {
	local := a.Address[:strings.LastIndexByte(a.Address, '@')]
	return &mail.Address{Name: a.Name, Address: local + "@" + domainOf(a)}
}

// normalizeHost drops the brackets of an IPv6 literal and a trailing dot,
// so "[::1]" and "localhost." are judged like "::1" and "localhost".
func normalizeHost(h string) string {
	h = strings.TrimSpace(h)
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(h, ".")
}

func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

func isLoopback(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
