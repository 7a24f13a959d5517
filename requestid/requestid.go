// Package requestid gives every request of the app its id and is the one place that reads it
// back: the API's error bodies and log lines, and the admin UI's error pages and audit entries,
// show the same id (docs/API.md §2, X-Request-ID).
package requestid

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Header carries the id both ways: a client may send one, every answer has one.
const Header = "X-Request-ID"

// key is the request local that holds the id.
type key struct{}

// Set gives c's request its id, a sane client X-Request-ID or a fresh one, sends it back in
// the answer's header and returns it.
func Set(c *fiber.Ctx) string {
	// Cloned: Fiber's header values are views of a buffer reused after the request, and the id
	// travels on in audit entries queued for the batch writer.
	id := strings.Clone(c.Get(Header))
	if !sane(id) {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	c.Locals(key{}, id)
	c.Set(Header, id)
	return id
}

// Of is the id Set gave c's request ("" when none did).
func Of(c *fiber.Ctx) string {
	id, _ := c.Locals(key{}).(string)
	return id
}

func sane(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
