package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// redocJS is the vendored reference renderer, Redoc 2.5.4 (api/reference/README.md).
//
//go:embed reference/redoc.standalone.js
var redocJS []byte

// referenceCSP allows the page exactly what Redoc needs: its script and the OpenAPI document
// from this origin, the styles it injects at run time (inline), its search worker (a blob),
// and data: images and fonts. Nothing from any other origin: Redoc's footer logo, which it
// would load from its CDN, is refused and hides itself.
const referenceCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// assetCacheControl is the Cache-Control of content-hashed files: their URL changes with
// their content, so they may be kept for a year.
const assetCacheControl = "public, max-age=31536000, immutable"

// referenceRoutes registers GET /api/docs, the API reference (docs/API.md §1), and the
// renderer under its content-hashed path /api/docs/redoc.<sha256 prefix>.js.
func referenceRoutes(app *fiber.App) {
	sum := sha256.Sum256(redocJS)
	script := "/api/docs/redoc." + hex.EncodeToString(sum[:6]) + ".js"
	page := strings.ReplaceAll(referencePage, "{{script}}", script)
	app.Get("/api/docs", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
		c.Set(fiber.HeaderContentSecurityPolicy, referenceCSP)
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
		c.Set(fiber.HeaderCacheControl, "no-cache")
		return c.SendString(page)
	})
	name := strings.TrimPrefix(script, "/api/docs/")
	app.Get("/api/docs/:asset", func(c *fiber.Ctx) error {
		if c.Params("asset") != name {
			return fiber.ErrNotFound
		}
		c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
		c.Set(fiber.HeaderCacheControl, assetCacheControl)
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		return c.Send(redocJS)
	})
}

// referencePage renders /api/v1/openapi.json with Redoc, configured through the element's
// attributes: no inline script, so the CSP can forbid every one.
const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>consentforms API reference</title>
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" expand-responses="400,401,403,404,429" required-props-first="true"></redoc>
<script src="{{script}}"></script>
</body>
</html>
`
