package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"time"

	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// loginCookie holds the random value the sign-in form's CSRF token is bound to before there
// is a session.
const loginCookie = "cf_login"

// csrfFor is the CSRF token of a session: an HMAC of its id, so it needs no storage and
// changes with every sign-in.
func (h *handler) csrfFor(sessionID string) string {
	return mac(h.sessionKeys()[0].csrf, "session", sessionID)
}

// loginCSRF is the sign-in form's token, bound to the pre-session cookie.
func (h *handler) loginCSRF(nonce string) string { return mac(h.sessionKeys()[0].csrf, "login", nonce) }

// validSessionCSRF checks a session's token against every session key still accepted, so
// that a page rendered before a key rotation still posts.
func (h *handler) validSessionCSRF(sessionID, got string) bool {
	for _, k := range h.sessionKeys() {
		if validCSRF(mac(k.csrf, "session", sessionID), got) {
			return true
		}
	}
	return false
}

func mac(key []byte, purpose, v string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose + "\x00" + v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF compares in constant time; an empty token is never valid.
func validCSRF(want, got string) bool {
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// submittedCSRF is the token of a request: the htmx header or the form field.
func submittedCSRF(c *fiber.Ctx) string {
	if t := c.Get(web.CSRFHeader); t != "" {
		return t
	}
	return c.FormValue(web.CSRFField)
}

// validLoginCSRF checks a sign-in post against its pre-session cookie.
func (h *handler) validLoginCSRF(c *fiber.Ctx) bool {
	nonce := c.Cookies(loginCookie)
	if nonce == "" {
		return false
	}
	got := submittedCSRF(c)
	for _, k := range h.sessionKeys() {
		if validCSRF(mac(k.csrf, "login", nonce), got) {
			return true
		}
	}
	return false
}

// ensureLoginNonce returns the pre-session cookie's value, setting a new one if absent.
func (h *handler) ensureLoginNonce(c *fiber.Ctx) string {
	if n := c.Cookies(loginCookie); len(n) >= 16 {
		return n
	}
	n := randomToken(18)
	setCookie(c, loginCookie, n, h.Now().Add(2*time.Hour))
	return n
}

// csrfRefused answers an unsafe request without a valid token: 403, nothing done.
func (h *handler) csrfRefused(c *fiber.Ctx, s *session) error {
	return h.forbiddenMsg(c, s, "The form has expired or did not come from this site. Reload the page and try again.")
}
