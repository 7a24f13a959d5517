package api

import "github.com/gofiber/fiber/v2"

// New builds an app with the API alone, as package cmd's newApp does with the admin UI beside
// it, for the tests of this package. A path no route matches answers docs/API.md §2's 404
// through the error handler.
func New(d Deps) *fiber.App {
	a := NewServer(d)
	app := fiber.New(a.Config())
	for _, m := range a.Middleware() {
		app.Use(m)
	}
	a.Mount(app)
	return app
}
