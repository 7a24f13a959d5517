// Package altcha is the proof-of-work spam challenge of the web forms, in the ALTCHA format
// (altcha.org, the classic "SHA-256 + HMAC" challenge the ALTCHA widget solves): the server
// hands out {algorithm, challenge, maxnumber, salt, signature}, where challenge is
// SHA-256(salt + number) for a secret random number ≤ maxnumber and signature the HMAC-SHA-256
// of challenge under the server's key; the browser finds the number by trying them all and
// sends back base64(JSON{algorithm, challenge, number, salt, signature}). Verification is
// stateless: the salt carries the expiry and what the challenge is for, and the HMAC covers
// the salt through the challenge. That a solution is spent once is the caller's part (the
// store remembers spent challenges until they expire).
package altcha

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Algorithm is the one hash this server issues and accepts.
const Algorithm = "SHA-256"

// Challenge is what the browser is given to solve (the ALTCHA widget's challenge JSON).
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int64  `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// Payload is a solved challenge as the browser sends it back (base64 of its JSON).
type Payload struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int64  `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// ErrFailed is every refused solution: malformed, wrong, forged, expired, or meant for
// something else. Callers answer them all alike.
var ErrFailed = errors.New("challenge failed")

// Signer issues and verifies challenges under one secret key.
type Signer struct {
	Key []byte
	// MaxNumber is the difficulty: the secret number is drawn from 0..MaxNumber, so a browser
	// tries MaxNumber/2 hashes on average.
	MaxNumber int64
	// TTL is how long a challenge may be solved and sent back.
	TTL time.Duration
}

// Create issues a challenge bound to purpose (e.g. a key and form id) that expires TTL after now.
func (s Signer) Create(purpose string, now time.Time) (Challenge, error) {
	salt := make([]byte, 12)
	if _, err := rand.Read(salt); err != nil {
		return Challenge{}, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(s.MaxNumber+1))
	if err != nil {
		return Challenge{}, err
	}
	params := url.Values{"expires": {strconv.FormatInt(now.Add(s.TTL).Unix(), 10)}, "for": {purpose}}
	// The trailing "&" ends the salt, so that no digit can move from the number into the salt
	// (a solution "spliced" as salt+"1", number 23 for salt, number 123).
	c := Challenge{Algorithm: Algorithm, MaxNumber: s.MaxNumber, Salt: hex.EncodeToString(salt) + "?" + params.Encode() + "&"}
	c.Challenge = hashHex(c.Salt, n.Int64())
	c.Signature = s.sign(c.Challenge)
	return c, nil
}

// Verify checks an encoded solution (the base64 JSON the widget sends, or the JSON itself)
// for purpose at now, and returns its challenge, to be spent once, with its expiry.
func (s Signer) Verify(encoded, purpose string, now time.Time) (challenge string, expires time.Time, err error) {
	p, err := Decode(encoded)
	if err != nil {
		return "", time.Time{}, ErrFailed
	}
	params, ok := saltParams(p.Salt)
	if !ok || params.Get("for") != purpose || p.Number < 0 || p.Number > s.MaxNumber {
		return "", time.Time{}, ErrFailed
	}
	exp, err := strconv.ParseInt(params.Get("expires"), 10, 64)
	if err != nil || !now.Before(time.Unix(exp, 0)) {
		return "", time.Time{}, ErrFailed
	}
	if !s.Check(p) {
		return "", time.Time{}, ErrFailed
	}
	return p.Challenge, time.Unix(exp, 0), nil
}

// Check is the format's own verification: the algorithm is SHA-256, SHA-256(salt + number) is
// the challenge and the signature is the challenge's HMAC under the key, both compared in
// constant time.
func (s Signer) Check(p Payload) bool {
	if p.Algorithm != Algorithm {
		return false
	}
	okHash := subtle.ConstantTimeCompare([]byte(hashHex(p.Salt, p.Number)), []byte(p.Challenge)) == 1
	okSig := subtle.ConstantTimeCompare([]byte(s.sign(p.Challenge)), []byte(p.Signature)) == 1
	return okHash && okSig
}

// Decode reads a solution: base64 (standard or URL alphabet, padded or not) of its JSON, or
// the JSON itself.
func Decode(encoded string) (Payload, error) {
	var p Payload
	raw := []byte(strings.TrimSpace(encoded))
	if len(raw) == 0 || len(raw) > 4096 {
		return p, ErrFailed
	}
	if raw[0] != '{' {
		var err error
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			var b []byte
			if b, err = enc.DecodeString(string(raw)); err == nil {
				raw = b
				break
			}
		}
		if err != nil {
			return p, ErrFailed
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, ErrFailed
	}
	return p, nil
}

// Encode is the base64 JSON of a solution, as the widget sends it.
func Encode(p Payload) string {
	b, _ := json.Marshal(p)
	return base64.StdEncoding.EncodeToString(b)
}

// Solve finds the number of c by trying 0..c.MaxNumber, as a browser does; ok is false when
// none matches.
func Solve(c Challenge) (n int64, ok bool) {
	want, err := hex.DecodeString(c.Challenge)
	if err != nil || len(want) != sha256.Size {
		return 0, false
	}
	buf := make([]byte, 0, len(c.Salt)+20)
	for n = 0; n <= c.MaxNumber; n++ {
		buf = strconv.AppendInt(append(buf[:0], c.Salt...), n, 10)
		sum := sha256.Sum256(buf)
		if binary.BigEndian.Uint64(sum[:8]) == binary.BigEndian.Uint64(want[:8]) && string(sum[:]) == string(want) {
			return n, true
		}
	}
	return 0, false
}

// saltParams reads the parameters after the salt's "?", which must end with "&".
func saltParams(salt string) (url.Values, bool) {
	random, query, found := strings.Cut(salt, "?")
	if !found || len(random) != 24 || !strings.HasSuffix(query, "&") {
		return nil, false
	}
	if _, err := hex.DecodeString(random); err != nil {
		return nil, false
	}
	v, err := url.ParseQuery(strings.TrimSuffix(query, "&"))
	return v, err == nil
}

func hashHex(salt string, n int64) string {
	sum := sha256.Sum256([]byte(salt + strconv.FormatInt(n, 10)))
	return hex.EncodeToString(sum[:])
}

func (s Signer) sign(challenge string) string {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte(challenge))
	return hex.EncodeToString(m.Sum(nil))
}

// DefaultMaxNumber and DefaultTTL are the difficulty and lifetime of the web forms' challenges:
// 25,000 hashes on average, under a second in a browser (docs/API.md §14 has the measurements).
const (
	DefaultMaxNumber = 50_000
	DefaultTTL       = 5 * time.Minute
)
