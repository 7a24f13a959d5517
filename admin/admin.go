// Package admin is the staff web UI: routes (each with its casbin object and action),
// sessions, CSRF and handlers rendering the templ views of package web.
package admin

import (
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// Deps is what the admin UI needs; package cmd wires it.
type Deps struct {
	Store    Store
	Ops      *ops.Service
	Enforcer *policies.Enforcer
	Logger   *slog.Logger
	// Secret signs session tokens.
	Secret []byte
	// Purge* drop cached entries after a change made here, so it takes effect at once.
	PurgeKey    func(id string)
	PurgeForm   func(tenantID, formID string)
	PurgeTenant func(id string)
	Now         func() time.Time
}

// Mount registers the admin UI under /admin.
func Mount(app *fiber.App, d Deps) {
	app.Get("/admin", func(c *fiber.Ctx) error { return c.Redirect("/admin/", fiber.StatusFound) })
}
