// Package pages serves the pages the person themself opens, without credentials: the
// confirmation of a double opt-in (/c/), the person's preference page (/p/, and /w/ for the
// withdrawal links mailed before it) and the hosted web form (/f/). They share one guard (guard.go): rate-limited per client address, no cookies,
// nothing loaded from another origin, no JavaScript needed. Their words come from the message
// catalogue in web (web.Msg), in the form's language.
package pages

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Deps is what the pages need.
type Deps struct {
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger
	Now            func() time.Time
	// PerMinute is how many requests one client address may make to the pages per minute;
	// 0 is DefaultPerMinute.
	PerMinute int
	// Links serves the confirmation (/c/) and withdrawal (/w/) pages.
	Links LinkCases
	// Forms serves the hosted form page (form.go).
	Forms FormPages
}

// DefaultPerMinute is the per-address request limit of the pages when none is configured.
const DefaultPerMinute = 60

type handler struct {
	Deps
	limit    *addrLimiter
	noScript *noScriptLimits
}

// Mount registers the person's pages behind their guard.
func Mount(app *fiber.App, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.PerMinute <= 0 {
		d.PerMinute = DefaultPerMinute
	}
	h := &handler{Deps: d, limit: newAddrLimiter(d.PerMinute, d.Now)}
	// Each page registers its routes here, behind h.guard.
	if d.Links != nil {
		app.Get("/c/:token", h.guard, h.confirmPage).Post("/c/:token", h.guard, h.confirm)
		// The preference page; a withdrawal link (/w/) opens it too, and its POST (a mail
		// client's one-click unsubscribe) still withdraws general contact.
		app.Get("/p/:token", h.guard, h.preferencesPage).Post("/p/:token", h.guard, h.preferencesPost)
		app.Get("/w/:token", h.guard, h.preferencesPage).Post("/w/:token", h.guard, h.withdraw)
	}
	// Each page registers its routes here, behind h.guard: app.Get("/c/:token", h.guard, ...).
	h.mountForm(app)
}
