package admin

import (
	"github.com/consentforms/consentforms/clientaddr"
	"github.com/gofiber/fiber/v2"
)

// clientAddr is the address of the client behind the trusted proxies (clientaddr.Of).
func (h *handler) clientAddr(c *fiber.Ctx) string { return clientaddr.Of(c, h.TrustedProxies) }
