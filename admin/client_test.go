package admin

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestClientAddr: X-Forwarded-For counts only from a trusted peer, read from the right up to
// the first address that is not a trusted proxy.
func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name    string
		proxies []netip.Prefix
		xff     []string
		want    string
	}{
		{"no proxies: the header is ignored", nil, []string{"203.0.113.9"}, "0.0.0.0"},
		{"trusted peer, one hop", trusted, []string{"203.0.113.9"}, "203.0.113.9"},
		{"a forged entry on the left", trusted, []string{"198.51.100.1, 203.0.113.9"}, "203.0.113.9"},
		{"a chain of trusted proxies", trusted, []string{"203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"two headers", trusted, []string{"198.51.100.1", "203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"with a port", trusted, []string{"[2001:db8::1]:4711"}, "2001:db8::1"},
		{"garbage stops at the proxy", trusted, []string{"203.0.113.9, nonsense"}, "0.0.0.0"},
	} {
		h := &handler{Deps: Deps{TrustedProxies: c.proxies}}
		if c.proxies != nil {
			// app.Test's peer is 0.0.0.0: trust it as the proxy in front.
			h.TrustedProxies = append([]netip.Prefix{netip.MustParsePrefix("0.0.0.0/32")}, c.proxies...)
		}
		app := fiber.New()
		var got string
		app.Get("/", func(ctx *fiber.Ctx) error { got = h.clientAddr(ctx); return nil })
		req := httptest.NewRequest("GET", "/", nil)
		for _, v := range c.xff {
			req.Header.Add("X-Forwarded-For", v)
		}
		if _, err := app.Test(req); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
