package api

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// Request bodies are streamed (fiber's StreamRequestBody): the transport hands a request on
// once its headers are read, with at most its read buffer of the body. An API request's body
// is read only after its secret key is checked (readBody, from admit); every body is read to
// at most BodyLimit bytes. Bodies read before any secret credential — the admin UI's and the
// person's pages (sign-in takes none), the hosted form page, a provider webhook whose signature
// covers its body, a publishable key's (public by design) — come out of the public budget,
// PublicBodyBytesInFlight in all; bodies of secret-key requests out of BodyBytesInFlight. So
// however many connections arrive without a secret, what they make the server hold is that
// budget plus what each connection costs the transport (docs/OPERATIONS.md "Limits and
// overload").

// DefaultBodyBytesInFlight is the default bound on body bytes held by all secret-key requests
// at once.
const DefaultBodyBytesInFlight = 256 << 20

// DefaultPublicBodyBytesInFlight is the default bound on body bytes held at once by all
// requests without a secret credential.
const DefaultPublicBodyBytesInFlight = 32 << 20

// bodyBudget counts the body bytes that requests hold.
type bodyBudget struct {
	mu   sync.Mutex
	used int64
	max  int64
}

func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// busyRetry is the Retry-After, in seconds, of a body refused for want of memory budget.
const busyRetry = 1

// bodyLimit refuses, unread, a body whose declared length is over the limit (413). Outside
// the API (the admin UI, whose sign-in takes no credential) the body is read here, bounded;
// the API reads it once the credential is known (readBody). Whatever a request's body held of
// the in-flight budget is given back when its handlers are done.
func (s *server) bodyLimit(c *fiber.Ctx) error {
	if n := c.Request().Header.ContentLength(); n > s.BodyLimit {
		s.discardRefused(c, n)
		return fiber.ErrRequestEntityTooLarge
	}
	defer func() {
		if h, ok := c.Locals(bodyHeldKey).(held); ok && h.n > 0 {
			h.from.give(h.n)
			c.Locals(bodyHeldKey, held{})
		}
	}()
	if strings.HasPrefix(c.Path(), "/api/") {
		return c.Next()
	}
	return s.readBody(c, s.public)
}

// discardRefused reads and throws away the body of a request refused as too large (413) or for
// want of budget (503), when it is at most drainFactor times the limit: a client still writing
// it would otherwise see the connection reset instead of the answer (the server closes a
// connection with unread bytes). Nothing is kept, so this costs the in-flight budget nothing; a
// larger body is not waited for.
func (s *server) discardRefused(c *fiber.Ctx, n int) {
	if n > drainFactor*s.BodyLimit {
		return
	}
	if bs := c.Request().BodyStream(); bs != nil {
		_, _ = io.CopyN(io.Discard, bs, int64(n))
	}
}

// drainFactor bounds the oversized bodies discardRefused reads to the end.
const drainFactor = 4

// readBody reads the request's body (loadBody) out of budget, then runs the next handler.
func (s *server) readBody(c *fiber.Ctx, budget *bodyBudget) error {
	if err := s.loadBody(c, budget); err != nil {
		return err
	}
	return c.Next()
}

type bodyHeld struct{}

var bodyHeldKey = bodyHeld{}

// held is what a request's body holds of which budget.
type held struct {
	from *bodyBudget
	n    int64
}

// loadBody reads a streamed body into memory (idempotent): bounded by BodyLimit, counted in
// budget under bodyHeldKey, which bodyLimit gives back.
func (s *server) loadBody(c *fiber.Ctx, budget *bodyBudget) error {
	req := c.Request()
	if !req.IsBodyStream() {
		if len(req.Body()) > s.BodyLimit {
			return fiber.ErrRequestEntityTooLarge
		}
		return nil
	}
	want := int64(s.BodyLimit) + 1
	if n := req.Header.ContentLength(); n >= 0 {
		want = int64(n)
	}
	if !budget.take(want) {
		// Read and drop the body (it holds no budget that way), so that the client still
		// writing it reads the 503 rather than a reset connection.
		s.discardRefused(c, int(want))
		return &Error{Status: fiber.StatusServiceUnavailable, Kind: "ServiceUnavailable",
			Message: "The service is busy reading other requests; retry later.",
			Details: map[string]any{"retryAfter": busyRetry}, RetryAfter: busyRetry}
	}
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(req.BodyStream(), int64(s.BodyLimit)+1))
	if err != nil || buf.Len() > s.BodyLimit {
		budget.give(want)
		if err != nil {
			return fiber.ErrBadRequest
		}
		return fiber.ErrRequestEntityTooLarge
	}
	req.SetBodyRaw(buf.Bytes())
	c.Locals(bodyHeldKey, held{from: budget, n: want})
	return nil
}
