package api

import (
	"time"

	"github.com/gofiber/fiber/v2"
)

// methods are the methods metrics name; any other is counted as OTHER, so that a client
// cannot invent label values.
var methods = map[string]bool{fiber.MethodGet: true, fiber.MethodHead: true, fiber.MethodPost: true,
	fiber.MethodPut: true, fiber.MethodPatch: true, fiber.MethodDelete: true, fiber.MethodOptions: true}

// observeRequest reports the answered request to Deps.ObserveRequest with fixed labels only:
// the method (or OTHER), the route's pattern (or "unmatched") and the status.
func (s *server) observeRequest(c *fiber.Ctx, took time.Duration) {
	if s.ObserveRequest == nil {
		return
	}
	method := c.Method()
	if !methods[method] {
		method = "OTHER"
	}
	s.ObserveRequest(method, routeOf(c), c.Response().StatusCode(), took)
}
