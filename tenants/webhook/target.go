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
		return errors.New("must not point at a private, loopback, link-local or other special-purpose address")
	}
	return nil
}

// allowed reports whether deliveries may connect to a: a global unicast address outside every
// block of the IANA special-purpose address registries (IPv4 and IPv6), and outside the
// prefixes that embed an IPv4 address in an IPv6 one (NAT64, 6to4, IPv4-compatible), which
// could reach any IPv4 address through a translator.
func (p Policy) allowed(a netip.Addr) bool {
	if p.AllowInsecure {
		return true
	}
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	for _, b := range specialPurpose {
		if b.Contains(a) {
			return false
		}
	}
	return true
}

// specialPurpose are the blocks of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (iana-ipv4-special-registry, iana-ipv6-special-registry), with the IPv4-embedding prefixes
// and the reserved and deprecated ranges that are no destination for a webhook.
var specialPurpose = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		// IPv4
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24",
		"192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
		// IPv6
		"::/128", "::1/128", "::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64",
		"100:0:0:1::/64", "2001::/23", "2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20",
		"5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Dialer returns a dialer that refuses connections to addresses the policy does not allow,
// checked after name resolution (SSRF by DNS rebinding included).
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook: address %q: %w", address, err)
		}
		if !p.allowed(ap.Addr()) {
			return ErrRefusedAddress
		}
		return nil
	}}
}

// ErrRefusedAddress is a connection the policy refused: to a private, loopback or link-local
// address without AllowInsecure.
var ErrRefusedAddress = errors.New("webhook: refused private address")
