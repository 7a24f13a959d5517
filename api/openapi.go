package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

//go:embed openapi.json
var openAPI []byte

// serveOpenAPI is GET /api/v1/openapi.json: the OpenAPI 3.1 document of every endpoint.
func serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openAPI)
}
