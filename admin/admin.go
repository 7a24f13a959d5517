// Package admin is the staff web UI: routes (each with its casbin object and action),
// sessions, CSRF and handlers rendering the templ views of package web.
package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"
	"net/netip"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Deps is what the admin UI needs; package cmd wires it.
type Deps struct {
	Store Store
	// The case families the handlers call (deps.go).
	Persons Persons
	Bulk    Bulk
	Rights  Rights
	// Requests are the data-subject requests (nil: the page lists none).
	Requests Requests
	// Observer counts refusals and store errors in the metrics (nil: nothing is counted).
	Observer tenants.Observer
	// Diagnostics reads and records inbound webhook deliveries (nil: none kept).
	Diagnostics WebhookDiagnostics
	Enforcer    *policies.Enforcer
	Logger      *slog.Logger
	// SessionKeys are the keys that sign session tokens, the current one first, then those
	// still accepted after a rotation; the CSRF and flash keys are derived from each. Called
	// on every request, so that a rotation reaches a running server. nil: Secret alone.
	SessionKeys func() []SessionKey
	// Secret is the session key when SessionKeys is nil (tests).
	Secret []byte
	// TrustedProxies are the networks of the reverse proxies in front of the service: the
	// client address comes from X-Forwarded-For only when the peer is one of them.
	TrustedProxies []netip.Prefix
	// Purge* drop cached entries after a change made here, so it takes effect at once.
	PurgeKey    func(id string)
	PurgeForm   func(tenantID, formID string)
	PurgeTenant func(id string)
	Now         func() time.Time
	// PasswordChecks bounds the password checks (bcrypt) running at once; an attempt that
	// finds none free within a moment is answered 429 unchecked (default 4).
	PasswordChecks int
	// Provision runs the provisioning operations (tenants, keys, forms, staff, webhook
	// credentials), wired once by package cmd for the CLI and the admin UI; its SecretsKeys
	// seal the SMS provider secrets staff set (nil: they cannot be set here).
	Provision *provision.Service
	// PublicURL is the service's public base (CONSENTFORMS_PUBLIC_URL or its default): the
	// base of every link and webhook URL a page shows; "" takes the request's (tests).
	PublicURL string
	// ExportJSON is the JSON shape of a person's access export, the API's own (api.ExportView):
	// the download is the answer of POST /api/v1/gdpr/export.
	ExportJSON func(ops.PersonExport) any
	// Mail reads the tenants' mail servers and sends their test mail (nil: the page offers none).
	Mail MailServers
}

// SessionKey is one key that signs session tokens, named by its id (the tokens' kid).
type SessionKey struct {
	ID  string
	Key []byte
}

// keySet is a session key with the keys derived from it.
type keySet struct {
	id               string
	jwt, csrf, flash []byte
}

// handler holds what every admin request shares. Nothing in it is mutable but the
// concurrency-safe throttle.
type handler struct {
	Deps
	log      *slog.Logger
	throttle *throttle
	// dummy is checked against for unknown e-mails, so that they take as long as wrong passwords.
	dummy tenants.Staff
	// checks holds a token per password check running (PasswordChecks).
	checks chan struct{}
	// navAccess is the object and action of each GET route, so the navigation shows only
	// what the role may open.
	navAccess map[string]access
}

// Mount registers the admin UI under /admin: the static assets, every route of the route
// table, and a 404 page for any other /admin path.
func Mount(app *fiber.App, d Deps) {
	h := newHandler(d)
	app.Get(web.StaticPrefix+":name", h.static)
	h.mount(app, h.routes())
	app.Use("/admin", h.notFound)
}

func newHandler(d Deps) *handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	for _, f := range []*func(string){&d.PurgeKey, &d.PurgeTenant} {
		if *f == nil {
			*f = func(string) {}
		}
	}
	if d.PurgeForm == nil {
		d.PurgeForm = func(string, string) {}
	}
	dummy, err := tenants.NewStaff("", "dummy@example.invalid", "not-a-password-anyone-has", tenants.RoleViewer, "-", time.Now())
	if err != nil {
		panic("admin: dummy password hash: " + err.Error()) // only bcrypt's entropy source can fail here
	}
	if d.SessionKeys == nil {
		keys := []SessionKey{{ID: "0", Key: d.Secret}}
		d.SessionKeys = func() []SessionKey { return keys }
	}
	if d.PasswordChecks <= 0 {
		d.PasswordChecks = 4
	}
	return &handler{Deps: d, log: d.Logger, dummy: dummy, throttle: newThrottle(d.Now), checks: make(chan struct{}, d.PasswordChecks)}
}

// keys are the session keys with their derived keys, the current one first.
func (h *handler) sessionKeys() []keySet {
	var out []keySet
	for _, k := range h.SessionKeys() {
		out = append(out, keySet{id: k.ID, jwt: derive(k.Key, "admin session jwt"), csrf: derive(k.Key, "admin csrf"),
			flash: derive(k.Key, "admin flash")})
	}
	return out
}

// jwtKeyOf is the token key named kid, or nil.
func (h *handler) jwtKeyOf(kid string) []byte {
	for _, k := range h.sessionKeys() {
		if k.id == kid {
			return k.jwt
		}
	}
	return nil
}

// derive gives each use of the secret its own key.
func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// static serves the embedded assets under their content-hashed names.
func (h *handler) static(c *fiber.Ctx) error {
	data, ct, ok := web.Asset(c.Params("name"))
	if !ok {
		return h.notFound(c)
	}
	c.Set(fiber.HeaderCacheControl, web.AssetCacheControl)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentType, ct)
	return c.Send(data)
}
