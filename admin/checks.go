package admin

import (
	"sync"
	"time"

	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// checkWait is how long a sign-in waits for a free password check before it is refused.
const checkWait = 200 * time.Millisecond

// passwordCheck takes one of the PasswordChecks slots, waiting at most checkWait: bcrypt costs
// tens of milliseconds of a CPU, and attempts from many addresses at once must not take every
// CPU from the API. release gives the slot back (once, however often it is called).
func (h *handler) passwordCheck() (release func(), ok bool) {
	t := time.NewTimer(checkWait)
	defer t.Stop()
	select {
	case h.checks <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-h.checks }) }, true
	case <-t.C:
		return nil, false
	}
}

// busy answers a sign-in that found no password check free: 429, unchecked.
func (h *handler) busy(c *fiber.Ctx) error {
	h.countThrottled()
	c.Set(fiber.HeaderRetryAfter, "1")
	p := web.ErrorPage{Layout: h.layout(c, nil, "Too many attempts", ""), Status: fiber.StatusTooManyRequests,
		Message: "Too many sign-in attempts are being checked right now. Try again in a moment."}
	return h.render(c, fiber.StatusTooManyRequests, web.Error(p))
}
