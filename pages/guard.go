package pages

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/consentforms/consentforms/clientaddr"
	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// pageCSP allows the page's own stylesheet and images and forms posting to itself, nothing
// from another origin, no script and no framing. A page that needs more (the hosted form's
// script, framing by the tenant's site) sets its own after the guard.
const pageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// guard runs before every page: the per-address limit (429 with Retry-After), the security
// headers, and no cookie on the answer whatever a handler did.
func (h *handler) guard(c *fiber.Ctx) error {
	if wait := h.limit.take(clientaddr.Group(clientaddr.Of(c, h.TrustedProxies))); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusTooManyRequests).SendString("Too many requests: try again in " + strconv.Itoa(secs) + " s.")
	}
	c.Set(fiber.HeaderContentSecurityPolicy, pageCSP)
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
	err := c.Next()
	c.Response().Header.Del(fiber.HeaderSetCookie)
	return err
}

// addrLimiter is a token bucket per client address in a bounded LRU: perMinute requests a
// minute, with bursts of up to half of that (at least 5): a person who reloads a page or posts
// it again is never stopped, a script is. Each instance counts its own.
type addrLimiter struct {
	mu    sync.Mutex
	lru   *expirable.LRU[string, bucket]
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newAddrLimiter(perMinute int, now func() time.Time) *addrLimiter {
	return &addrLimiter{lru: expirable.NewLRU[string, bucket](100_000, nil, 10*time.Minute),
		rate: float64(perMinute) / 60, burst: max(5, float64(perMinute)/2), now: now}
}

// take spends one token of addr's bucket; when there is none it returns how long until one.
func (l *addrLimiter) take(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.lru.Get(addr)
	if !ok {
		b = bucket{tokens: l.burst, at: now}
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		l.lru.Add(addr, b)
		return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	l.lru.Add(addr, b)
	return 0
}
