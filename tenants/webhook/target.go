package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// Policy says which endpoint URLs are allowed. Without AllowInsecure only https:// URLs whose
// host resolves to public addresses are; with it (tests, local development), http:// and
// private, loopback and link-local addresses are too.
type Policy struct {
	AllowInsecure bool
}

// CheckURL validates an endpoint URL when it is registered. The address is checked again at
// every connection (Dial), so a name that later resolves to a private address is refused too.
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return errors.New("must be an absolute URL without user info or fragment")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && p.AllowInsecure:
	default:
		return errors.New("must use https")
	}
	if len(raw) > 2000 {
		return errors.New("must be at most 2000 characters")
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && !p.allowed(a) {
		return errors.New("must not point at a private, loopback or link-local address")
	}
	return nil
}

// allowed reports whether deliveries may connect to a.
func (p Policy) allowed(a netip.Addr) bool {
	if p.AllowInsecure {
		return true
	}
	a = a.Unmap()
	return a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() &&
		!netip.MustParsePrefix("100.64.0.0/10").Contains(a) && !netip.MustParsePrefix("fc00::/7").Contains(a)
}

// Dialer returns a dialer that refuses connections to addresses the policy does not allow,
// checked after name resolution (SSRF by DNS rebinding included).
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook: address %q: %w", address, err)
		}
		if !p.allowed(ap.Addr()) {
			return errRefusedAddress
		}
		return nil
	}}
}

var errRefusedAddress = errors.New("webhook: refused private address")
