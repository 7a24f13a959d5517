package admin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// only is a key lookup that answers key whatever the kid.
func only(key []byte) func(string) []byte { return func(string) []byte { return key } }

func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

func validClaims(now time.Time) claims {
	cl := claims{SessionID: "sid-1", AuthTime: now.Unix()}
	cl.Subject = "u_1"
	cl.Issuer = issuer
	cl.IssuedAt = jwt.NewNumericDate(now)
	cl.ExpiresAt = jwt.NewNumericDate(now.Add(sessionTTL))
	return cl
}

func TestTokenRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cl := claims{SessionID: "sid-1", AuthTime: now.Unix(), Tenant: "t_1"}
	cl.Subject = "u_1"
	tok, exp, err := signToken(testKey, "k1", cl, now)
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(now.Add(sessionTTL)) {
		t.Errorf("expiry %v", exp)
	}
	got, err := parseToken(only(testKey), tok, fixedNow(now.Add(time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Subject != "u_1" || got.SessionID != "sid-1" || got.Tenant != "t_1" {
		t.Errorf("claims %+v", got)
	}
	if _, err := parseToken(only(testKey), tok, fixedNow(now.Add(sessionTTL+time.Second))); err == nil {
		t.Error("expired token accepted")
	}
	if _, err := parseToken(only([]byte("another key, another key, other")), tok, fixedNow(now)); err == nil {
		t.Error("token signed with another key accepted")
	}
}

// TestTokenAlgorithmPinned: only HS256 with our key is accepted, whatever the header says.
func TestTokenAlgorithmPinned(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cl := validClaims(now)
	sign := func(m jwt.SigningMethod, key any) string {
		s, err := jwt.NewWithClaims(m, cl).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	unsigned := sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType)
	hs256 := sign(jwt.SigningMethodHS256, testKey)
	parts := strings.Split(hs256, ".")
	cases := map[string]string{
		"none":                     unsigned,
		"none, signature stripped": strings.Join(parts[:2], ".") + ".",
		"HS512 with the same key":  sign(jwt.SigningMethodHS512, testKey),
		"HS384 with the same key":  sign(jwt.SigningMethodHS384, testKey),
		"ES256":                    sign(jwt.SigningMethodES256, ec),
		"header says none":         `eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.` + parts[1] + ".",
		"garbage":                  "not.a.token",
		"empty":                    "",
	}
	for name, tok := range cases {
		if _, err := parseToken(only(testKey), tok, fixedNow(now)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := parseToken(only(testKey), hs256, fixedNow(now)); err != nil {
		t.Errorf("HS256: %v", err)
	}
}

func TestTokenNeedsSubjectSessionIssuer(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, mut := range map[string]func(*claims){
		"no subject":    func(c *claims) { c.Subject = "" },
		"no session id": func(c *claims) { c.SessionID = "" },
		"other issuer":  func(c *claims) { c.Issuer = "someone" },
		"no expiry":     func(c *claims) { c.ExpiresAt = nil },
		"issued later":  func(c *claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour)) },
	} {
		cl := validClaims(now)
		mut(&cl)
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, cl).SignedString(testKey)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseToken(only(testKey), tok, fixedNow(now)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCSRF(t *testing.T) {
	h := &handler{Deps: Deps{SessionKeys: func() []SessionKey { return []SessionKey{{ID: "1", Key: testKey}} }}}
	a, b := h.csrfFor("session-a"), h.csrfFor("session-b")
	if a == b || a == "" {
		t.Fatalf("tokens %q %q", a, b)
	}
	if a != h.csrfFor("session-a") {
		t.Error("token not stable for a session")
	}
	if h.loginCSRF("session-a") == a {
		t.Error("login and session tokens share a namespace")
	}
	cases := []struct {
		want, got string
		ok        bool
	}{
		{a, a, true},
		{a, b, false},
		{a, "", false},
		{"", "", false},
		{a, a[:len(a)-1], false},
		{a, a + "x", false},
		{a, strings.ToUpper(a), a == strings.ToUpper(a)},
	}
	for _, c := range cases {
		if got := validCSRF(c.want, c.got); got != c.ok {
			t.Errorf("validCSRF(%q, %q) = %v", c.want, c.got, got)
		}
	}
}

// TestThrottle: attempts are counted before they are checked, all limits or none; past the
// limit one more attempt comes after a backoff that doubles up to its cap; a success gives
// its attempt back.
func TestThrottle(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	th := newThrottle(func() time.Time { return now })
	acct, addr := limit{"a|x", maxFailuresAccount}, limit{"x", maxFailuresAddr}
	for i := range maxFailuresAccount {
		if _, ok := th.take(acct, addr); !ok {
			t.Fatalf("refused after %d attempts", i)
		}
	}
	wait, ok := th.take(acct, addr)
	if ok || wait != backoffBase {
		t.Fatalf("after %d attempts: ok %v, wait %v", maxFailuresAccount, ok, wait)
	}
	if _, ok := th.take(limit{"b|x", maxFailuresAccount}, addr); !ok {
		t.Error("another account from the same address refused")
	}
	if _, ok := th.take(limit{"a|y", maxFailuresAccount}, limit{"y", maxFailuresAddr}); !ok {
		t.Error("the same account from another address refused")
	}
	// Backoff: one more attempt after a minute, then two, four, ... up to the cap.
	for _, d := range []time.Duration{backoffBase, 2 * backoffBase, 4 * backoffBase, 8 * backoffBase, backoffMax, backoffMax} {
		now = now.Add(d - time.Second)
		if _, ok := th.take(acct); ok {
			t.Fatalf("allowed before the %v backoff passed", d)
		}
		now = now.Add(time.Second)
		if _, ok := th.take(acct); !ok {
			t.Fatalf("refused after the %v backoff", d)
		}
	}
	th.succeeded(acct.key, addr.key)
	if _, ok := th.take(acct); !ok {
		t.Error("refused after a success")
	}
	// A refused attempt counts against no limit.
	full := limit{"full", 1}
	th.take(full)
	before, _ := th.lru.Get(addr.key)
	if _, ok := th.take(addr, full); ok {
		t.Fatal("a limit at its maximum allowed an attempt")
	}
	if after, _ := th.lru.Get(addr.key); after.n != before.n {
		t.Errorf("a refused attempt was counted: %d -> %d", before.n, after.n)
	}
}
