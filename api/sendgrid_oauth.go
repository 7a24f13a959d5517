package api

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
)

// SendGrid's OAuth option for its Event Webhook (docs/API.md §8.3): SendGrid exchanges a
// tenant's client id and secret (a webhook credential of provider "sendgrid") at our token
// endpoint for a short-lived bearer token, and sends that token with each delivery. The token
// is good on the SendGrid unsubscribe path alone.
const (
	oauthTokenPath   = "/sendgrid/oauth/token"
	oauthAudience    = "consentforms:sendgrid-unsubscribe"
	oauthTokenTTL    = time.Hour
	oauthProvider    = "sendgrid"
	oauthGrantClient = "client_credentials"
)

// oauthClaims are an access token's claims: the credential (sub) and its tenant.
type oauthClaims struct {
	Tenant string `json:"tid"`
	jwt.RegisteredClaims
}

// sendgridToken is the token endpoint: grant_type=client_credentials with the client id and
// secret as HTTP Basic credentials or form fields (RFC 6749 §2.3.1, §4.4).
func (s *server) sendgridToken(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	if len(s.OAuthKey) == 0 {
		return &Error{Status: fiber.StatusNotFound, Kind: "NotFound", Message: "SendGrid OAuth is not set up on this server."}
	}
	if err := s.loadBody(c, s.public); err != nil {
		return err
	}
	if c.FormValue("grant_type") != oauthGrantClient {
		return &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Code: "unsupported_grant_type",
			Message: "Send grant_type=client_credentials, form-encoded."}
	}
	id, secret := c.FormValue("client_id"), c.FormValue("client_secret")
	if user, pass, ok := basicCredentials(c.Get(fiber.HeaderAuthorization)); ok {
		id, secret = user, pass
	}
	// Each client id has its own bucket, so guessing at one client's secret is slowed down.
	if wait, ok := s.limiter.allow("oauth:"+id, tenants.DefaultRateLimit, s.Now()); !ok {
		return s.rateLimited(wait, "Too many token requests for this client; retry after the given number of seconds.")
	}
	denied := &Error{Status: fiber.StatusUnauthorized, Kind: "Unauthorized", Code: "invalid_client", Message: "Unknown client, or a wrong or revoked secret."}
	t, err := s.oauthClient(c, id, secret)
	if errors.Is(err, tenants.ErrNotFound) {
		return denied
	}
	if err != nil {
		return err
	}
	now := s.Now()
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, oauthClaims{Tenant: t.TenantID, RegisteredClaims: jwt.RegisteredClaims{
		Subject: t.ID, Audience: jwt.ClaimStrings{oauthAudience}, IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(oauthTokenTTL))}}).SignedString(s.OAuthKey)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"access_token": token, "token_type": "Bearer", "expires_in": int(oauthTokenTTL / time.Second)})
}

// oauthClient checks a client id and secret: the secret is the credential's plaintext
// (mct_<id>_<secret>) and the client id its id. tenants.ErrNotFound for anything that does not
// check out.
func (s *server) oauthClient(c *fiber.Ctx, clientID, secret string) (tenants.WebhookToken, error) {
	id, plain, ok := tenants.ParseWebhookToken(secret)
	if !ok || clientID != id {
		return tenants.WebhookToken{}, tenants.ErrNotFound
	}
	t, err := s.Tokens.Lookup(c.UserContext(), id)
	if err != nil {
		return t, err
	}
	if t.Provider != oauthProvider || !t.Verify(plain) {
		return t, tenants.ErrNotFound
	}
	return t, nil
}

// sendgridBearer admits a delivery carrying one of our access tokens: signed by us, for the
// SendGrid path, unexpired, its credential not revoked since.
func (s *server) sendgridBearer(c *fiber.Ctx, raw, obj, act string) error {
	denied := unauthorized("Invalid or expired SendGrid access token.")
	var claims oauthClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return s.OAuthKey, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithAudience(oauthAudience), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.Now))
	if err != nil || len(s.OAuthKey) == 0 {
		return denied
	}
	t, err := s.Tokens.Lookup(c.UserContext(), claims.Subject)
	if errors.Is(err, tenants.ErrNotFound) {
		return denied
	}
	if err != nil {
		return err
	}
	if t.RevokedAt != nil || t.TenantID != claims.Tenant || t.Provider != oauthProvider {
		return refuse(c, t.TenantID, tenants.RefusedUnknownToken, denied)
	}
	s.touch(usedCredential{kindToken, t.ID}, s.Now())
	return s.admitTenant(c, t.TenantID, "token:"+t.ID, obj, act)
}

// bearerJWT is the JWT of an Authorization: Bearer header, "" for anything else (an API key).
func bearerJWT(header string) string {
	scheme, v, _ := strings.Cut(header, " ")
	if v = strings.TrimSpace(v); strings.EqualFold(scheme, "Bearer") && strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 {
		return v
	}
	return ""
}

// basicCredentials reads HTTP Basic credentials (RFC 6749 §2.3.1 form-encodes both parts).
func basicCredentials(header string) (user, pass string, ok bool) {
	scheme, v, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return "", "", false
	}
	u, p, found := strings.Cut(string(raw), ":")
	if !found {
		return "", "", false
	}
	if du, err := url.QueryUnescape(u); err == nil {
		u = du
	}
	if dp, err := url.QueryUnescape(p); err == nil {
		p = dp
	}
	return u, p, true
}
