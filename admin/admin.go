// Package admin is the staff web UI: routes (each with its casbin object and action),
// sessions, CSRF and handlers rendering the templ views of package web.
package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Deps is what the admin UI needs; package cmd wires it.
type Deps struct {
	Store    Store
	Ops      *ops.Service
	Enforcer *policies.Enforcer
	Logger   *slog.Logger
	// Secret signs session tokens; the CSRF and flash keys are derived from it too.
	Secret []byte
	// Purge* drop cached entries after a change made here, so it takes effect at once.
	PurgeKey    func(id string)
	PurgeForm   func(tenantID, formID string)
	PurgeTenant func(id string)
	Now         func() time.Time
}

// handler holds what every admin request shares. Nothing in it is mutable but the
// concurrency-safe throttle and sign-out list.
type handler struct {
	Deps
	log      *slog.Logger
	jwtKey   []byte
	csrfKey  []byte
	flashKey []byte
	throttle *throttle
	// signedOut holds the ids of sessions signed out before their token expired.
	signedOut *expirable.LRU[string, struct{}]
	// dummy is checked against for unknown e-mails, so that they take as long as wrong passwords.
	dummy tenants.Staff
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
	return &handler{
		Deps: d, log: d.Logger, dummy: dummy,
		jwtKey: derive(d.Secret, "admin session jwt"), csrfKey: derive(d.Secret, "admin csrf"),
		flashKey:  derive(d.Secret, "admin flash"),
		throttle:  newThrottle(d.Now),
		signedOut: expirable.NewLRU[string, struct{}](100_000, nil, sessionTTL),
	}
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
