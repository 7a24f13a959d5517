// Package api is the JSON API: routes, key authentication, rate limits, handlers and the
// error envelope. The route table is the authorization table: each route names its casbin
// object and action where it is registered.
package api

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/requestid"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
)

// TokenStore finds provider webhook tokens (Mailchimp's URL token).
type TokenStore interface {
	Lookup(ctx context.Context, id string) (tenants.WebhookToken, error)
	// Touch records the token's last use.
	Touch(ctx context.Context, id string, now time.Time) error
}

// Deps is what the API needs; package cmd wires it. Handlers hand the stores and operations
// c.UserContext(), never c.Context(): that is fasthttp's request context, reset and reused once
// the request is answered, while goroutines the database driver starts (database/sql's
// rows watcher) may still read it, a data race the race detector reports at shutdown.
type Deps struct {
	Keys    tenants.KeyStore
	Tenants tenants.TenantStore
	Forms   tenants.FormStore
	Records tenants.RecordStore
	Tokens  TokenStore
	// The case families the handlers call (deps.go).
	Intake  Intake
	Persons Persons
	Rights  Rights
	Links   Links
	// Confirmations mail a pending confirmation again.
	Confirmations Confirmations
	// ReceiptKeys sign receipts (?format=jws) and are published as JWKS (nil: no signed receipts).
	ReceiptKeys ReceiptKeys
	// Observer counts refusals and store errors in the metrics (nil: nothing is counted).
	Observer tenants.Observer
	Enforcer *policies.Enforcer
	// Ready reports whether the database answers (GET /readyz).
	Ready  func(ctx context.Context) error
	Logger *slog.Logger
	Now    func() time.Time
	// BodyLimit is the largest request body in bytes (default 1 MiB).
	BodyLimit int
	// BodyBytesInFlight bounds the body bytes all secret-key requests hold at once (default
	// 256 MiB); PublicBodyBytesInFlight those of requests without a secret credential (default
	// 32 MiB; bodies.go).
	BodyBytesInFlight, PublicBodyBytesInFlight int64
	// ReadTimeout bounds reading one request, headers and body (default 30 s).
	ReadTimeout time.Duration
	// Concurrency caps the connections the transport serves at once (0: the transport's own).
	Concurrency int
	// TenantRateFactor is a tenant's rate limit over all its keys, as a multiple of its
	// per-key rate limit (default DefaultTenantRateFactor).
	TenantRateFactor int
	// TrustedProxies are the networks (CIDRs) of the reverse proxies in front of the service:
	// X-Forwarded-Proto and -Host are believed from these peers only. None by default.
	TrustedProxies []string
	// ObserveRequest, when set, hears of every answered request (metrics): the route's
	// pattern or "unmatched", never the path a client sent.
	ObserveRequest func(method, route string, status int, took time.Duration)
	// Diagnostics, when set, hears of every unsubscribe webhook delivery (docs/API.md §8.4).
	Diagnostics WebhookRecorder
	// SMSSecrets opens the tenants' SMS provider secrets (nil: only the bearer key works there).
	SMSSecrets SMSSecrets
	// OAuthKey signs the access tokens of SendGrid's OAuth option (nil: the option is off).
	OAuthKey []byte
	// PublicURL is the service's public base URL (CONSENTFORMS_PUBLIC_URL), over which
	// Twilio signs its requests; "" = the request's own URL.
	PublicURL string
	// WebForms is what publishable keys and the spam challenge need (publishable.go).
	WebForms WebForms
}

type server struct {
	Deps
	log     *slog.Logger
	limiter *limiter
	touched *touches
	bodies  *bodyBudget // secret-key requests' bodies
	public  *bodyBudget // bodies read before a secret credential
	// webForms is the publishable keys' and challenges' state (publishable.go).
	webForms *webForms
}

// DefaultBodyLimit is the default size limit of docs/API.md §2.
const DefaultBodyLimit = 1 << 20

// transportSlack is how far past BodyLimit the transport's own limit lies. Bodies are streamed
// (bodies.go): one whose declared length is over BodyLimit is answered 413 unread by bodyLimit,
// and one without a declared length is read to at most BodyLimit+1 bytes. So no request,
// authenticated or not, makes the server hold more than BodyLimit of body.
const transportSlack = 16 << 10

// refuseEncoded answers 415 to a request whose body is compressed (a Content-Encoding other
// than identity) before anything reads it: the framework would inflate it on the first read,
// without limit, and the size limit would count the compressed bytes. Bodies are never
// inflated (docs/API.md §2).
func refuseEncoded(c *fiber.Ctx) error {
	enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding))
	if enc == "" || strings.EqualFold(enc, "identity") {
		return c.Next()
	}
	return &Error{Status: fiber.StatusUnsupportedMediaType, Kind: "UnsupportedMediaType",
		Message: "Send the request body uncompressed: Content-Encoding must be absent or identity."}
}

// hsts tells browsers that reached the service over HTTPS to use nothing else (a year).
func hsts(c *fiber.Ctx) error {
	if c.Protocol() == "https" {
		c.Set(fiber.HeaderStrictTransportSecurity, "max-age=31536000")
	}
	return c.Next()
}

// Server is the API before it is mounted. Package cmd builds the one app from its Config and
// Middleware, which the admin UI shares, then mounts the API's routes and the admin's.
type Server struct{ s *server }

// NewServer prepares the API's handlers; nothing is registered yet.
func NewServer(d Deps) *Server {
	if d.BodyLimit <= 0 {
		d.BodyLimit = DefaultBodyLimit
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.BodyBytesInFlight <= 0 {
		d.BodyBytesInFlight = DefaultBodyBytesInFlight
	}
	if d.PublicBodyBytesInFlight <= 0 {
		d.PublicBodyBytesInFlight = DefaultPublicBodyBytesInFlight
	}
	if d.ReadTimeout <= 0 {
		d.ReadTimeout = 30 * time.Second
	}
	if d.TenantRateFactor <= 0 {
		d.TenantRateFactor = DefaultTenantRateFactor
	}
	srv := &server{Deps: d, log: d.Logger, limiter: newLimiter(), touched: newTouches(), bodies: &bodyBudget{max: d.BodyBytesInFlight},
		public: &bodyBudget{max: d.PublicBodyBytesInFlight}}
	srv.webForms = newWebForms(d.WebForms, d.TrustedProxies)
	return &Server{srv}
}

// Config is the app's configuration, with the one error handler of the app.
func (a *Server) Config() fiber.Config {
	return fiber.Config{
		AppName: "consentforms",
		// Request strings are copied out of fasthttp's reused buffers, so nothing kept past a
		// request (cache keys, throttle keys, audit request ids) can change under our feet.
		Immutable: true,
		BodyLimit: a.s.BodyLimit + transportSlack,
		// Bodies are read by the handlers, after the credential (bodies.go).
		StreamRequestBody: true,
		Concurrency:       a.s.Concurrency,
		// The transport would parse every multipart body as it reads it, before any handler
		// could refuse it; nothing here takes multipart, and the admin refuses it unread.
		DisablePreParseMultipartForm: true,
		ErrorHandler:                 a.s.errorHandler,
		// The scheme and host (cookies' Secure flag, URLs shown, HSTS) come from X-Forwarded-*
		// headers only when the peer is a trusted proxy; with none configured, never.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          a.s.TrustedProxies,
		DisableStartupMessage:   true,
		ReadTimeout:             a.s.ReadTimeout,
		WriteTimeout:            60 * time.Second,
		IdleTimeout:             120 * time.Second,
	}
}

// Middleware runs before every route of the app, the admin UI's included, in order: recovery,
// the request id and log line, the refusal of encoded bodies, HSTS, the body limit.
func (a *Server) Middleware() []fiber.Handler {
	return []fiber.Handler{recover.New(), a.s.requestLog, refuseEncoded, hsts, a.s.bodyLimit}
}

// Mount registers the health checks and the API's route table: each route with the casbin
// object and action its credential must be allowed (policies/policy.csv).
func (a *Server) Mount(app *fiber.App) {
	s := a.s
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) })
	app.Get("/readyz", s.ready)
	// The tenants' receipt keys: anyone may check a signed receipt (docs/API.md §12.3).
	app.Get("/.well-known/jwks.json", s.jwks)

	v1 := app.Group("/api/v1")
	referenceRoutes(app)
	v1.Get("/openapi.json", serveOpenAPI)
	v1.Post("/forms/accept-submission", s.key("api:submissions", "write"), s.acceptSubmission)
	v1.Options("/forms/accept-submission", s.preflight(fiber.MethodPost))
	v1.Get("/forms/submissions/:id", s.key("api:submissions", "read"), s.getSubmission)
	v1.Get("/forms/submissions/:id/receipt", s.key("api:submissions", "read"), s.getReceipt(tenants.KindFormSubmission))
	v1.Get("/digitisation/submissions/:id/receipt", s.key("api:submissions", "read"), s.getReceipt(tenants.KindDigitisation))
	v1.Get("/canvassing/submissions/:id/receipt", s.key("api:submissions", "read"), s.getReceipt(tenants.KindCanvassing))
	v1.Post("/forms/submissions/:id/resend-confirmation", s.key("api:submissions", "write"), s.resendConfirmation)
	v1.Get("/challenges/:form_id", s.key("api:challenge", "read"), s.challenge)
	v1.Options("/challenges/:form_id", s.preflight(fiber.MethodGet))
	// The challenge's path until 2026-12, whose template collided with the submission read's
	// (/forms/submissions/{id}): answered for one more release, marked deprecated
	// (docs/API.md §14), and left out of the OpenAPI document.
	v1.Get("/forms/:form_id/challenge", deprecatedFor("/api/v1/challenges/"), s.key("api:challenge", "read"), s.challenge)
	v1.Options("/forms/:form_id/challenge", deprecatedFor("/api/v1/challenges/"), s.preflight(fiber.MethodGet))
	v1.Get("/consents", s.key("api:submissions", "read"), s.getConsents)
	v1.Post("/consents/search", s.key("api:submissions", "read"), s.searchConsents)
	v1.Get("/consents/expiring", s.key("api:submissions", "read"), s.expiring)
	v1.Post("/digitisation/submissions", s.key("api:records", "write"), s.postDigitisation)
	v1.Post("/canvassing/submissions", s.key("api:records", "write"), s.postCanvassing)
	v1.Post("/phone-call-tasks", s.key("api:records", "write"), s.postPhoneCallTask)
	v1.Post("/gdpr/search-and-anonymise", s.key("api:gdpr", "anonymise"), s.anonymise)
	v1.Post("/gdpr/export", s.key("api:gdpr", "export"), s.exportPerson)
	// Each provider's path takes an API key allowed this object and action, or the credential
	// that provider can present (docs/API.md §8.3); diagnoseRoutes records every delivery first.
	s.diagnoseRoutes(v1)
	for _, p := range unsubscribe.AllProviders() {
		v1.Post("/"+p+"/unsubscribe", s.webhookAuth(p, "api:unsubscribe", "write"), s.unsubscribe(p))
	}
	// Mailchimp validates a webhook URL with an unauthenticated GET.
	v1.Post(oauthTokenPath, s.sendgridToken)
	// Vonage's SMS API delivers inbound messages by GET where the account says so.
	v1.Get("/vonage/unsubscribe", s.webhookAuth("vonage", "api:unsubscribe", "write"), s.unsubscribe("vonage"))
	v1.Get("/mailchimp/unsubscribe", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"success": true}) })
}

// ready answers /readyz: while the database does not answer, the shared 503 of docs/API.md §2.
func (s *server) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		return fmt.Errorf("readiness: %w: %w", tenants.ErrUnavailable, err)
	}
	return c.JSON(fiber.Map{"status": "ready"})
}

// requestLog gives every request its id and logs one line per request: route pattern,
// status, duration. Never the body, the query string or the path's values, which may carry
// personal data.
func (s *server) requestLog(c *fiber.Ctx) error {
	requestid.Set(c)
	start := time.Now()
	err := c.Next()
	if err != nil {
		if herr := s.errorHandler(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	attrs := append(logAttrs(c), slog.String("method", c.Method()), slog.Int("status", c.Response().StatusCode()),
		slog.Duration("duration", time.Since(start)))
	if a, ok := c.Locals(authKey).(*auth); ok {
		attrs = append(attrs, slog.String("tenant", a.tenant.ID), slog.String("key", a.actor))
	}
	s.log.Info("request", attrs...)
	s.observeRequest(c, time.Since(start))
	return nil
}

// requestID is the id requestLog gave the request.
var requestID = requestid.Of

// routeOf is the matched route's pattern, never the concrete path.
func routeOf(c *fiber.Ctx) string {
	if r := c.Route(); r != nil && r.Path != "" && r.Path != "/" {
		return r.Path
	}
	return "unmatched"
}
