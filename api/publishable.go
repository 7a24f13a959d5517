package api

import (
	"context"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/clientaddr"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// OriginChecker answers CORS preflights, which carry no key: does a usable publishable key
// of any tenant allow this origin?
type OriginChecker interface {
	OriginAllowed(ctx context.Context, origin string, now time.Time) (bool, error)
}

// WebForms is what the publishable keys and the spam challenge of docs/API.md §14 need.
type WebForms struct {
	Origins OriginChecker
	// Challenges remembers spent challenges until they expire, on every instance.
	Challenges tenants.ChallengeRepo
	// Signer issues and verifies the challenges; its key lives in the secrets file.
	Signer altcha.Signer
	// PerMinute is how many requests one client address may make with publishable keys per
	// minute (0: DefaultPublishablePerMinute), in bursts of half of that.
	PerMinute int
}

// DefaultPublishablePerMinute is the per-address limit of publishable-key requests.
const DefaultPublishablePerMinute = 60

// webForms is the server's part of WebForms: a short cache of preflight answers.
type webForms struct {
	WebForms
	proxies []netip.Prefix
	origins *expirable.LRU[string, bool]
}

func newWebForms(d WebForms, trusted []string) *webForms {
	if d.PerMinute <= 0 {
		d.PerMinute = DefaultPublishablePerMinute
	}
	if d.Signer.MaxNumber <= 0 {
		d.Signer.MaxNumber = altcha.DefaultMaxNumber
	}
	if d.Signer.TTL <= 0 {
		d.Signer.TTL = altcha.DefaultTTL
	}
	w := &webForms{WebForms: d, origins: expirable.NewLRU[string, bool](10000, nil, 15*time.Second)}
	for _, p := range trusted {
		if pfx, err := netip.ParsePrefix(p); err == nil {
			w.proxies = append(w.proxies, pfx)
		}
	}
	return w
}

// scopePublishable is the casbin subject of every publishable key, whatever it lists.
const scopePublishable = "publishable"

// casbinScopes are the subjects casbin decides a key's requests by.
func casbinScopes(k tenants.APIKey) []string {
	if k.Publishable {
		return []string{scopePublishable}
	}
	return k.Scopes
}

// fromBrowser admits a publishable key's request: its Origin must be one the key allows
// (403), the answer then carries the CORS headers for it, and the client address gets its own
// limit (429) besides the key's.
func (s *server) fromBrowser(c *fiber.Ctx, k tenants.APIKey) error {
	origin := c.Get(fiber.HeaderOrigin)
	if !k.AllowsOrigin(origin) {
		return forbidden("This publishable key may not be used from this origin.")
	}
	if origin != "" {
		corsHeaders(c, origin)
	}
	w := s.webForms
	perMinute := float64(w.PerMinute)
	if wait, ok := s.limiter.take("pkaddr:"+clientaddr.Group(clientaddr.Of(c, w.proxies)), perMinute/60, max(perMinute/2, 1), s.Now()); !ok {
		return s.rateLimited(wait, "Too many requests from this address; retry after the given number of seconds.")
	}
	return nil
}

// corsHeaders let the page at origin read the answer; never with credentials.
func corsHeaders(c *fiber.Ctx, origin string) {
	c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
	c.Set(fiber.HeaderAccessControlExposeHeaders, "Retry-After, X-Request-ID, X-Submission-Id")
	c.Vary(fiber.HeaderOrigin)
}

// preflight answers a CORS preflight of a publishable key's route: 204 with the CORS headers
// when a usable publishable key allows the origin, else 403 without them.
func (s *server) preflight(method string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Vary(fiber.HeaderOrigin)
		origin, err := tenants.NormaliseOrigin(c.Get(fiber.HeaderOrigin))
		if err != nil || origin != c.Get(fiber.HeaderOrigin) {
			return forbidden("This origin may not call this endpoint.")
		}
		ok, err := s.originAllowed(c.UserContext(), origin)
		if err != nil {
			return err
		}
		if !ok {
			return forbidden("This origin may not call this endpoint.")
		}
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderAccessControlAllowMethods, method+", OPTIONS")
		c.Set(fiber.HeaderAccessControlAllowHeaders, "Authorization, Content-Type")
		c.Set(fiber.HeaderAccessControlMaxAge, "600")
		return c.SendStatus(fiber.StatusNoContent)
	}
}

// originAllowed asks the store, remembering answers for 15 s: a revoked key's origin stops
// being answered within that.
func (s *server) originAllowed(ctx context.Context, origin string) (bool, error) {
	w := s.webForms
	if ok, found := w.origins.Get(origin); found {
		return ok, nil
	}
	if w.Origins == nil {
		return false, nil
	}
	ok, err := w.Origins.OriginAllowed(ctx, origin, s.Now())
	if err != nil {
		return false, err
	}
	w.origins.Add(origin, ok)
	return ok, nil
}

// challengePathDeprecatedAt is when /api/v1/forms/{form_id}/challenge gave way to
// /api/v1/challenges/{form_id} (RFC 9745's Deprecation date).
var challengePathDeprecatedAt = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// deprecatedFor marks an answer of a deprecated path (RFC 9745 Deprecation, and the path that
// replaces it as the successor-version link: successor plus the form id).
func deprecatedFor(successor string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set("Deprecation", "@"+strconv.FormatInt(challengePathDeprecatedAt.Unix(), 10))
		c.Set(fiber.HeaderLink, "<"+successor+url.PathEscape(c.Params("form_id"))+`>; rel="successor-version"`)
		return c.Next()
	}
}

// challenge is GET /api/v1/challenges/{form_id} (before: /api/v1/forms/{form_id}/challenge,
// deprecated): a fresh ALTCHA challenge for the key's
// form, bound to the key and the form.
func (s *server) challenge(c *fiber.Ctx) error {
	a := authOf(c)
	formID := c.Params("form_id")
	if !a.key.AllowsForm(formID) {
		return forbidden("This publishable key may not submit to this form.")
	}
	_, open, err := s.openForm(c, a.tenant.ID, formID)
	if err != nil {
		return err
	}
	if !open {
		return notFound("No form with this id is open for submissions.")
	}
	ch, err := s.webForms.Signer.Create(ChallengePurpose(a.key.ID, formID), s.Now())
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(ch)
}

// ChallengePurpose binds a challenge to the key that fetched it and its form.
func ChallengePurpose(keyID, formID string) string { return "key:" + keyID + "/" + formID }
