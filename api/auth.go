package api

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/gofiber/fiber/v2"
)

const authKey = "auth"

// auth is an authenticated request's identity.
type auth struct {
	tenant tenants.Tenant
	key    tenants.APIKey // zero for webhook-token and OAuth callers
	scopes []string
	actor  string // audit actor: "key:<id>", "token:<id>", "oauth:<key id>"
}

func authOf(c *fiber.Ctx) *auth { return c.Locals(authKey).(*auth) }

// credential is how a caller presented a key.
type credential int

const (
	bearerOnly credential = iota
	bearerOrBasic
)

// key authenticates the bearer API key and requires that one of its scopes allows act on
// obj: 401 without a usable key, 403 without the scope, 429 over the key's rate limit.
func (s *server) key(obj, act string) fiber.Handler {
	return s.keyWith(obj, act, bearerOnly)
}

func (s *server) keyWith(obj, act string, cred credential) fiber.Handler {
	return func(c *fiber.Ctx) error {
		plain, err := presentedKey(c.Get(fiber.HeaderAuthorization), cred)
		if err != nil {
			return err
		}
		a, err := s.authenticate(c.UserContext(), plain)
		if err != nil {
			return err
		}
		return s.admit(c, a, obj, act)
	}
}

// admit checks scope and rate limit and hands the request on.
func (s *server) admit(c *fiber.Ctx, a *auth, obj, act string) error {
	c.Locals(authKey, a)
	if !s.Enforcer.ScopesAllow(a.scopes, obj, act) {
		return missingScope(s.Enforcer, obj, act)
	}
	if a.key.Publishable {
		if err := s.fromBrowser(c, a.key); err != nil {
			return err
		}
	}
	if wait, ok := s.limiter.allow(a.actor, a.tenant.Limit(), s.Now()); !ok {
		return s.rateLimited(wait, "Rate limit exceeded; retry after the given number of seconds.")
	}
	// The tenant's own bucket bounds all its keys together (TenantRateFactor times a key's
	// rate), so that issuing more keys does not buy more throughput.
	if wait, ok := s.limiter.allow(tenantBucket(a.tenant.ID), s.tenantRate(a.tenant), s.Now()); !ok {
		return s.rateLimited(wait, "The organisation's rate limit, shared by all its keys, is exceeded; retry after the given number of seconds.")
	}
	// A publishable key is public by design: its bodies come out of the public budget.
	if a.key.Publishable {
		return s.readBody(c, s.public)
	}
	return s.readBody(c, s.bodies)
}

func presentedKey(header string, cred credential) (string, error) {
	if header == "" {
		return "", unauthorized("Missing Authorization header; send Authorization: Bearer <API key>.")
	}
	scheme, value, _ := strings.Cut(header, " ")
	value = strings.TrimSpace(value)
	switch {
	case strings.EqualFold(scheme, "Bearer") && value != "":
		return value, nil
	case strings.EqualFold(scheme, "Basic") && cred == bearerOrBasic:
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			break
		}
		_, pass, ok := strings.Cut(string(raw), ":")
		if ok && pass != "" {
			return pass, nil
		}
	}
	return "", unauthorized("The Authorization header must be Bearer <API key>.")
}

// authenticate resolves a plaintext key to its tenant; every failure is the same 401 so
// that no caller learns whether a key id exists.
func (s *server) authenticate(ctx context.Context, plain string) (*auth, error) {
	denied := unauthorized("Invalid, revoked or expired API key.")
	id, secret, ok := tenants.ParseAPIKey(plain)
	if !ok {
		return nil, denied
	}
	k, err := s.Keys.Lookup(ctx, id)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, denied
	}
	if err != nil {
		return nil, err
	}
	now := s.Now()
	if !k.Verify(secret) || !k.Usable(now) || k.Publishable != tenants.PresentedPublishable(plain) {
		return nil, denied
	}
	t, err := s.Tenants.Get(ctx, k.TenantID)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, denied
	}
	if err != nil {
		return nil, err
	}
	if !t.Active() {
		return nil, denied
	}
	s.touch(usedCredential{kindKey, k.ID}, now)
	return &auth{tenant: t, key: k, scopes: casbinScopes(k), actor: "key:" + k.ID}, nil
}

// touchEvery bounds how often a credential's last-used time is written.
const touchEvery = time.Minute

// A used credential: an API key or a webhook token (their ids may coincide).
type usedCredential struct {
	kind byte
	id   string
}

const (
	kindKey byte = iota
	kindToken
)

// touches remembers when each credential's last use was last written.
type touches struct {
	mu   sync.Mutex
	last map[usedCredential]time.Time
}

func newTouches() *touches { return &touches{last: map[usedCredential]time.Time{}} }

// touch records a credential's use at most once per touchEvery on this instance, outside the
// request: no request waits for the write.
func (s *server) touch(u usedCredential, now time.Time) {
	t := s.touched
	t.mu.Lock()
	if now.Sub(t.last[u]) < touchEvery {
		t.mu.Unlock()
		return
	}
	t.last[u] = now
	if len(t.last) > 100000 {
		clear(t.last)
	}
	t.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		write, what := s.Keys.Touch, "record key use"
		if u.kind == kindToken {
			write, what = s.Tokens.Touch, "record webhook token use"
		}
		if err := write(ctx, u.id, now); err != nil {
			s.log.Warn(what, "id", u.id, "err", err)
		}
	}()
}

// DefaultTenantRateFactor is the default ratio of a tenant's rate limit, over all its keys, to
// its per-key rate limit.
const DefaultTenantRateFactor = 5

// tenantBucket is the limiter's id of a tenant's shared bucket.
func tenantBucket(id string) string { return "tenant:" + id }

// tenantRate is the tenant's requests per second over all its keys.
func (s *server) tenantRate(t tenants.Tenant) int { return t.Limit() * s.TenantRateFactor }

func (s *server) rateLimited(wait int, message string) error {
	s.observer().Count(tenants.EventRateLimited, 1)
	return &Error{Status: fiber.StatusTooManyRequests, Kind: "RateLimitExceeded", Message: message,
		Details: map[string]any{"retryAfter": wait}, RetryAfter: wait}
}
