package admin

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
)

const (
	sessionCookie = "cf_session"
	// sessionTTL is a token's lifetime; activity past half of it renews the token.
	sessionTTL = 30 * time.Minute
	// sessionMax bounds renewal: after it the user signs in again.
	sessionMax = 12 * time.Hour
	issuer     = "consentforms-admin"
)

// TokenLifetime is how long a session token lives: a session key rotated out is accepted
// this long, then every token it signed has expired or been renewed with the new key.
const TokenLifetime = sessionTTL

// claims are a session token's contents: the staff id (sub), the session id that the CSRF
// token is bound to, when the user signed in, and the tenant a platform admin works on.
type claims struct {
	SessionID string `json:"sid"`
	AuthTime  int64  `json:"ath"`
	Tenant    string `json:"ten,omitempty"`
	// KeyID repeats the header's kid, so that renewal can tell a token signed with a
	// rotated-out key.
	KeyID string `json:"kid,omitempty"`
	jwt.RegisteredClaims
}

// session is the signed-in user of a request.
type session struct {
	claims
	Staff tenants.Staff
	// TenantID is the tenant the user works on: a tenant user's own, the platform admin's
	// choice, or "" when a platform admin has chosen none.
	TenantID   string
	TenantName string
	CSRF       string
}

// parseToken verifies a session token: HS256 only (no "none", no other algorithm, no key
// confusion), signed with the key its kid names, our issuer, an expiry that has not passed.
func parseToken(key func(kid string) []byte, token string, now func() time.Time) (claims, error) {
	var cl claims
	_, err := jwt.ParseWithClaims(token, &cl, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if k := key(kid); k != nil {
			return k, nil
		}
		return nil, errors.New("session token signed with an unknown key")
	}, jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(now))
	if err != nil {
		return claims{}, err
	}
	if cl.Subject == "" || cl.SessionID == "" {
		return claims{}, errors.New("session token without subject or session id")
	}
	return cl, nil
}

// signToken issues a token for cl signed with key (named kid in the header), valid
// sessionTTL from now.
func signToken(key []byte, kid string, cl claims, now time.Time) (string, time.Time, error) {
	exp := now.Add(sessionTTL)
	cl.Issuer = issuer
	cl.IssuedAt = jwt.NewNumericDate(now)
	cl.ExpiresAt = jwt.NewNumericDate(exp)
	cl.KeyID = kid
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, cl)
	t.Header["kid"] = kid
	s, err := t.SignedString(key)
	return s, exp, err
}

// readSession verifies the session cookie's token and that its session is still recorded
// (not signed out, here or on another instance). A store error is returned as such: an
// unreachable database is not a sign-out.
func (h *handler) readSession(c *fiber.Ctx) (claims, bool, error) {
	tok := c.Cookies(sessionCookie)
	if tok == "" {
		return claims{}, false, nil
	}
	cl, err := parseToken(h.jwtKeyOf, tok, h.Now)
	if err != nil {
		return claims{}, false, nil
	}
	se, err := h.Store.Sessions.Get(c.UserContext(), sessionRef(cl.SessionID))
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return claims{}, false, nil
	case err != nil:
		return claims{}, false, err
	case se.StaffID != cl.Subject || !h.Now().Before(se.ExpiresAt):
		return claims{}, false, nil
	}
	return cl, true, nil
}

// sessionRef is how a session is recorded in the store: a hash of its id, so that the
// database alone names no live session.
func sessionRef(id string) string {
	sum := sha256.Sum256([]byte(id))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// loadSession re-reads the user, so that a deleted or disabled user is signed out at once, and
// resolves the tenant. errSignedOut means the user is gone or disabled, or their tenant is
// gone or suspended.
// errSignedOut is loadSession's answer for a session whose user may no longer be signed in.
var errSignedOut = errors.New("admin: signed out")

func (h *handler) loadSession(c *fiber.Ctx, cl claims) (*session, error) {
	st, err := h.Store.Staff.Lookup(c.UserContext(), cl.Subject)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, errSignedOut
	}
	if err != nil {
		return nil, err
	}
	if st.Disabled {
		return nil, errSignedOut
	}
	s := &session{claims: cl, Staff: st, TenantID: st.TenantID, CSRF: h.csrfFor(cl.SessionID)}
	if st.Role == tenants.RolePlatformAdmin {
		s.TenantID = cl.Tenant
	}
	if s.TenantID == "" {
		return s, nil
	}
	t, err := h.Store.Tenants.Get(c.UserContext(), s.TenantID)
	switch {
	case errors.Is(err, tenants.ErrNotFound) && st.Role == tenants.RolePlatformAdmin:
		s.TenantID, s.Tenant = "", "" // the chosen tenant is gone: choose again
	case errors.Is(err, tenants.ErrNotFound):
		return nil, errSignedOut // a tenant user whose tenant is gone has nothing to see
	case err != nil:
		return nil, err
	case !t.Active() && st.Role != tenants.RolePlatformAdmin:
		return nil, errSignedOut // a suspended tenant's staff are signed out
	default:
		s.TenantName = t.Name
	}
	return s, nil
}

// startSession signs in st with a fresh session id, recorded in the store for sessionMax.
func (h *handler) startSession(c *fiber.Ctx, st tenants.Staff) (string, error) {
	now := h.Now()
	cl := claims{SessionID: randomToken(18), AuthTime: now.Unix()}
	cl.Subject = st.ID
	err := h.Store.Sessions.Insert(c.UserContext(), tenants.Session{ID: sessionRef(cl.SessionID), StaffID: st.ID,
		CreatedAt: now, ExpiresAt: now.Add(sessionMax)})
	if err != nil {
		return "", err
	}
	return cl.SessionID, h.setSession(c, cl, now)
}

// setSession (re)issues the session cookie for cl, signed with the current key.
func (h *handler) setSession(c *fiber.Ctx, cl claims, now time.Time) error {
	k := h.sessionKeys()[0]
	tok, exp, err := signToken(k.jwt, k.id, cl, now)
	if err != nil {
		return err
	}
	setCookie(c, sessionCookie, tok, exp)
	return nil
}

// renew reissues a token past its half-life, or signed with a key that is no longer the
// current one (rotated), while the session is within sessionMax.
func (h *handler) renew(c *fiber.Ctx, s *session) {
	now := h.Now()
	if s.IssuedAt == nil || now.Sub(time.Unix(s.AuthTime, 0)) > sessionMax {
		return
	}
	if now.Sub(s.IssuedAt.Time) < sessionTTL/2 && s.KeyID == h.sessionKeys()[0].id {
		return
	}
	if err := h.setSession(c, s.claims, now); err != nil {
		h.log.Warn("renew admin session", "err", err)
	}
}

// endSession signs the session out: its record is deleted, so its token is refused from now
// on, on every instance; and the cookie is cleared.
func (h *handler) endSession(c *fiber.Ctx, s *session) error {
	h.clearSession(c)
	return h.Store.Sessions.Delete(c.UserContext(), sessionRef(s.SessionID))
}

func (h *handler) clearSession(c *fiber.Ctx) { clearCookie(c, sessionCookie) }

// setCookie sets one of the admin's cookies: scoped to /admin, out of reach of scripts, not
// sent on cross-site posts, and Secure when the request came over HTTPS.
func setCookie(c *fiber.Ctx, name, value string, expires time.Time) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: "/admin", Expires: expires, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode, Secure: c.Protocol() == "https"}) // X-Forwarded-Proto from trusted proxies only
}

func clearCookie(c *fiber.Ctx, name string) { setCookie(c, name, "", time.Unix(1, 0)) }

// randomToken returns n random bytes, base64url-encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}
