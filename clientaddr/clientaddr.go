// Package clientaddr finds the address of the client behind the trusted proxies, for the
// limits that count per client address (sign-in backoff, the person's pages, web forms).
package clientaddr

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Of is the address of the client: the peer, or, when the peer is a trusted proxy, the
// nearest address in X-Forwarded-For that is not a trusted proxy (read from the right: the
// entries to the left of the last untrusted hop are whatever the client wrote). An entry that
// is no address stops the walk at the proxy that passed it on.
func Of(c *fiber.Ctx, trusted []netip.Prefix) string {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	peer = peer.Unmap()
	if !contains(trusted, peer) {
		return peer.String()
	}
	var hops []string
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		hops = append(hops, strings.Split(string(v), ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := parseHop(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		peer = a.Unmap()
		if !contains(trusted, peer) {
			break
		}
	}
	return peer.String()
}

func contains(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads an X-Forwarded-For entry: an address, or an address with a port (some
// proxies add it: 192.0.2.1:4711, [2001:db8::1]:4711).
func parseHop(v string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(v); err == nil {
		return a, nil
	}
	ap, err := netip.ParseAddrPort(v)
	return ap.Addr(), err
}

// Group is what the per-address limits count a client address as: an IPv4 address itself, an
// IPv6 address by its /64, the smallest network one subscriber is given (a client holds a
// whole /64 and could otherwise take a fresh address for every request).
func Group(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Is4() {
		return addr
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
