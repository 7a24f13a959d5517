package requestid

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestSetKeepsSaneIDsOnly: a client's id is kept when it is short and plain, otherwise a fresh
// one is given; Of reads back what Set gave, and the answer carries it.
func TestSetKeepsSaneIDsOnly(t *testing.T) {
	for _, c := range []struct {
		name, sent string
		kept       bool
	}{
		{"none", "", false},
		{"plain", "req-1_a.B", true},
		{"too long", strings.Repeat("a", 65), false},
		{"odd characters", "a b", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := fiber.New()
			var set, read string
			app.Get("/", func(ctx *fiber.Ctx) error { set = Set(ctx); read = Of(ctx); return nil })
			req := httptest.NewRequest("GET", "/", nil)
			if c.sent != "" {
				req.Header.Set(Header, c.sent)
			}
			resp, err := app.Test(req)
			if err != nil {
				t.Fatal(err)
			}
			if set == "" || read != set || resp.Header.Get(Header) != set {
				t.Fatalf("set %q, read %q, header %q", set, read, resp.Header.Get(Header))
			}
			if (set == c.sent) != c.kept {
				t.Errorf("sent %q, got %q", c.sent, set)
			}
		})
	}
}

func TestOfWithoutSet(t *testing.T) {
	app := fiber.New()
	var got = "unset"
	app.Get("/", func(ctx *fiber.Ctx) error { got = Of(ctx); return nil })
	if _, err := app.Test(httptest.NewRequest("GET", "/", nil)); err != nil {
		t.Fatal(err)
	}
	if got != "" {
		t.Errorf("Of before Set: %q", got)
	}
}
