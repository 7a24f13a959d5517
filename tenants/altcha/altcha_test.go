package altcha

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// The format's own example: SHA-256("salt" + "123") is the challenge the ALTCHA libraries'
// tests solve to 123; its signature under "test-key" is HMAC-SHA-256 of the hex challenge
// (computed independently, with Python's hmac module).
const (
	exampleChallenge = "c2fc6c6adf8ba0f575a35f48df52c0968a3dcd3c577c2769dc2f1035943b975e"
	exampleSignature = "e9371dcaeff816c6aabc74e33054e4e427cf8d64fda0f3084b7e46004bc33963"
	exampleEncoded   = "eyJhbGdvcml0aG0iOiAiU0hBLTI1NiIsICJjaGFsbGVuZ2UiOiAiYzJmYzZjNmFkZjhiYTBmNTc1YTM1ZjQ4ZGY1MmMwOTY4YTNkY2QzYzU3N2MyNzY5ZGMyZjEwMzU5NDNiOTc1ZSIsICJudW1iZXIiOiAxMjMsICJzYWx0IjogInNhbHQiLCAic2lnbmF0dXJlIjogImU5MzcxZGNhZWZmODE2YzZhYWJjNzRlMzMwNTRlNGU0MjdjZjhkNjRmZGEwZjMwODRiN2U0NjAwNGJjMzM5NjMifQ=="
)

func TestFormatExamples(t *testing.T) {
	if n, ok := Solve(Challenge{Algorithm: Algorithm, Challenge: exampleChallenge, Salt: "salt", MaxNumber: 100000}); !ok || n != 123 {
		t.Errorf("Solve(example) = %d, %v; want 123", n, ok)
	}
	if _, ok := Solve(Challenge{Challenge: "invalidhash", Salt: "salt", MaxNumber: 1000}); ok {
		t.Error("Solve of a malformed challenge succeeded")
	}
	p, err := Decode(exampleEncoded)
	if err != nil || p.Number != 123 || p.Salt != "salt" || p.Challenge != exampleChallenge || p.Signature != exampleSignature {
		t.Fatalf("Decode(example) = %+v, %v", p, err)
	}
	s := Signer{Key: []byte("test-key"), MaxNumber: 100000}
	if !s.Check(p) {
		t.Error("the example's solution fails the format's check")
	}
	for name, bad := range map[string]Payload{
		"number":    {Algorithm: Algorithm, Challenge: exampleChallenge, Number: 124, Salt: "salt", Signature: exampleSignature},
		"signature": {Algorithm: Algorithm, Challenge: exampleChallenge, Number: 123, Salt: "salt", Signature: strings.Repeat("0", 64)},
		"algorithm": {Algorithm: "SHA-1", Challenge: exampleChallenge, Number: 123, Salt: "salt", Signature: exampleSignature},
	} {
		if s.Check(bad) {
			t.Errorf("Check accepted a wrong %s", name)
		}
	}
	if (Signer{Key: []byte("other key"), MaxNumber: 100000}).Check(p) {
		t.Error("Check accepted a signature under another key")
	}
}

func TestRoundTrip(t *testing.T) {
	s := Signer{Key: []byte("0123456789abcdef0123456789abcdef"), MaxNumber: 5000, TTL: 5 * time.Minute}
	c, err := s.Create("k1/f1", now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Algorithm != "SHA-256" || c.MaxNumber != 5000 || !strings.HasSuffix(c.Salt, "&") || !strings.Contains(c.Salt, "expires=") {
		t.Fatalf("challenge %+v", c)
	}
	n, ok := Solve(c)
	if !ok {
		t.Fatal("unsolvable")
	}
	good := Payload{Algorithm: c.Algorithm, Challenge: c.Challenge, Number: n, Salt: c.Salt, Signature: c.Signature}
	got, exp, err := s.Verify(Encode(good), "k1/f1", now.Add(time.Minute))
	if err != nil || got != c.Challenge || !exp.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("Verify = %q, %v, %v", got, exp, err)
	}
	// The JSON itself is read as well as its base64.
	if _, _, err := s.Verify(`{"algorithm":"SHA-256","challenge":"`+c.Challenge+`","number":`+itoa(n)+`,"salt":"`+c.Salt+`","signature":"`+c.Signature+`"}`, "k1/f1", now); err != nil {
		t.Errorf("plain JSON: %v", err)
	}
	spliced := good
	spliced.Salt, spliced.Number = c.Salt+itoa(n/10), n%10 // only meaningful for n ≥ 10
	for name, tc := range map[string]struct {
		enc, purpose string
		at           time.Time
	}{
		"expired":          {Encode(good), "k1/f1", now.Add(5 * time.Minute)},
		"other purpose":    {Encode(good), "k1/f2", now},
		"wrong number":     {Encode(Payload{c.Algorithm, c.Challenge, n + 1, c.Salt, c.Signature}), "k1/f1", now},
		"forged signature": {Encode(Payload{c.Algorithm, c.Challenge, n, c.Salt, strings.Repeat("a", 64)}), "k1/f1", now},
		"spliced salt":     {Encode(spliced), "k1/f1", now},
		"not base64":       {"%%%", "k1/f1", now},
		"empty":            {"", "k1/f1", now},
		"foreign salt":     {Encode(Payload{c.Algorithm, exampleChallenge, 123, "salt", exampleSignature}), "k1/f1", now},
	} {
		if _, _, err := s.Verify(tc.enc, tc.purpose, tc.at); err != ErrFailed {
			t.Errorf("%s: %v, want ErrFailed", name, err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// BenchmarkVerify is the server's cost per submission: decode, one SHA-256, one HMAC.
func BenchmarkVerify(b *testing.B) {
	s := Signer{Key: []byte("0123456789abcdef0123456789abcdef"), MaxNumber: DefaultMaxNumber, TTL: 5 * time.Minute}
	c, _ := s.Create("k1/f1", now)
	n, _ := Solve(c)
	enc := Encode(Payload{c.Algorithm, c.Challenge, n, c.Salt, c.Signature})
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.Verify(enc, "k1/f1", now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSolve is a client's work at the default difficulty (a stand-in for the browser,
// whose Web Crypto digest is slower per hash than Go's).
func BenchmarkSolve(b *testing.B) {
	s := Signer{Key: []byte("0123456789abcdef0123456789abcdef"), MaxNumber: DefaultMaxNumber, TTL: 5 * time.Minute}
	for b.Loop() {
		c, _ := s.Create("k1/f1", now)
		if _, ok := Solve(c); !ok {
			b.Fatal("unsolved")
		}
	}
}
