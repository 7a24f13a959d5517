package unsubscribe

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrBadSignature reports an SMS provider's webhook whose signature does not verify with the
// tenant's secret (wrong secret, tampered body or URL, missing signature).
var ErrBadSignature = errors.New("invalid webhook signature")

// VerifyTwilio checks Twilio's X-Twilio-Signature: base64(HMAC-SHA1(auth token, the full URL
// Twilio requested, query included, followed by each POST parameter's name and value, sorted
// by name)). As Twilio's own libraries do, the URL is tried as given and with its default
// port added or removed, since Twilio may sign either form.
func VerifyTwilio(authToken, signature, fullURL string, form url.Values) error {
	got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	if authToken == "" || err != nil || len(got) != sha1.Size {
		return ErrBadSignature
	}
	for _, u := range twilioURLs(fullURL) {
		if hmac.Equal(got, twilioMAC(authToken, u, form)) {
			return nil
		}
	}
	return ErrBadSignature
}

// TwilioSignature is the signature Twilio sends for a POST of form to fullURL.
func TwilioSignature(authToken, fullURL string, form url.Values) string {
	return base64.StdEncoding.EncodeToString(twilioMAC(authToken, fullURL, form))
}

func twilioMAC(authToken, fullURL string, form url.Values) []byte {
	m := hmac.New(sha1.New, []byte(authToken))
	m.Write([]byte(fullURL))
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := append([]string(nil), form[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			m.Write([]byte(k))
			m.Write([]byte(v))
		}
	}
	return m.Sum(nil)
}

// twilioURLs is the URL as given, then with its scheme's default port toggled.
func twilioURLs(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return []string{raw}
	}
	port := map[string]string{"https": "443", "http": "80"}[u.Scheme]
	alt := *u
	switch {
	case port == "":
		return []string{raw}
	case u.Port() == port:
		alt.Host = u.Hostname()
	case u.Port() == "":
		alt.Host = u.Host + ":" + port
	default:
		return []string{raw}
	}
	return []string{raw, alt.String()}
}

// VerifyTelnyx checks Telnyx's signed webhook (API v2): telnyx-signature-ed25519 is the
// base64 Ed25519 signature of "timestamp|raw body" under the account's public key (base64, as
// the portal shows it), telnyx-timestamp Unix seconds within 5 minutes of now.
func VerifyTelnyx(publicKey, signature, timestamp string, body []byte, now time.Time) error {
	pub, err := ParseTelnyxKey(publicKey)
	if err != nil {
		return err
	}
	if err := checkTimestamp(timestamp, now); err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return ErrBadSignature
	}
	msg := make([]byte, 0, len(timestamp)+1+len(body))
	msg = append(append(append(msg, timestamp...), '|'), body...)
	if !ed25519.Verify(pub, msg, sig) {
		return ErrBadSignature
	}
	return nil
}

// ParseTelnyxKey reads a Telnyx public key: 32 bytes in base64.
func ParseTelnyxKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("a Telnyx public key is 32 bytes in base64")
	}
	return ed25519.PublicKey(b), nil
}

// VerifyVonageSig checks the SMS API's signed inbound message: params (the form, JSON fields
// or query Vonage sent, without the webhook URL's own parameters) carry sig, timestamp and
// nonce. sig is the hex digest of "&key=value" for every other parameter sorted by key ("&"
// and "=" in values replaced by "_"): MD5 of that string followed by the signature secret
// (Vonage's default "MD5 hash"), or its HMAC under the secret with MD5, SHA-1, SHA-256 or
// SHA-512 (the method chosen in the dashboard, told apart by the digest's length). timestamp
// must be within 5 minutes of now.
func VerifyVonageSig(secret string, params map[string]string, now time.Time) error {
	sig := strings.ToLower(strings.TrimSpace(params["sig"]))
	if secret == "" || sig == "" {
		return ErrBadSignature
	}
	if err := checkTimestamp(params["timestamp"], now); err != nil {
		return err
	}
	for _, method := range vonageMethods(len(sig)) {
		if subtle.ConstantTimeCompare([]byte(sig), []byte(VonageSignature(secret, method, params))) == 1 {
			return nil
		}
	}
	return ErrBadSignature
}

// Vonage's signature methods, as its dashboard names them.
const (
	VonageMD5Hash = "md5hash"
	VonageMD5     = "md5"
	VonageSHA1    = "sha1"
	VonageSHA256  = "sha256"
	VonageSHA512  = "sha512"
)

func vonageMethods(hexLen int) []string {
	switch hexLen {
	case 2 * md5.Size:
		return []string{VonageMD5Hash, VonageMD5}
	case 2 * sha1.Size:
		return []string{VonageSHA1}
	case 2 * sha256.Size:
		return []string{VonageSHA256}
	case 2 * sha512.Size:
		return []string{VonageSHA512}
	}
	return nil
}

// VonageSignature is the lower-case hex sig Vonage computes over params (sig itself left out).
func VonageSignature(secret, method string, params map[string]string) string {
	var h hash.Hash
	switch method {
	case VonageMD5Hash:
		h = md5.New()
	case VonageMD5:
		h = hmac.New(md5.New, []byte(secret))
	case VonageSHA1:
		h = hmac.New(sha1.New, []byte(secret))
	case VonageSHA512:
		h = hmac.New(sha512.New, []byte(secret))
	default:
		h = hmac.New(sha256.New, []byte(secret))
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		if k != "sig" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	clean := strings.NewReplacer("&", "_", "=", "_")
	for _, k := range keys {
		fmt.Fprintf(h, "&%s=%s", k, clean.Replace(params[k]))
	}
	if method == VonageMD5Hash {
		h.Write([]byte(secret))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// VerifyVonageJWT checks the Messages API's signed webhook: a bearer JWT signed HS256 with
// the signature secret, whose payload_hash claim is the hex SHA-256 of the raw body, issued
// (iat) within 5 minutes of now.
func VerifyVonageJWT(secret, token string, body []byte, now time.Time) error {
	if secret == "" {
		return ErrBadSignature
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return []byte(secret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return now }))
	if err != nil {
		return ErrBadSignature
	}
	iat, err := claims.GetIssuedAt()
	if err != nil || iat == nil {
		return ErrBadSignature
	}
	if skew := now.Sub(iat.Time); skew > sendGridTolerance || skew < -sendGridTolerance {
		return fmt.Errorf("%w: issued %s from now", errTimestamp, skew.Round(time.Second))
	}
	want := sha256.Sum256(body)
	got, _ := claims["payload_hash"].(string)
	if subtle.ConstantTimeCompare([]byte(strings.ToLower(got)), []byte(hex.EncodeToString(want[:]))) != 1 {
		return ErrBadSignature
	}
	return nil
}

// LooksLikeJWT reports whether a bearer credential is a JWT rather than an API key.
func LooksLikeJWT(token string) bool {
	return strings.HasPrefix(token, "eyJ") && strings.Count(token, ".") == 2
}
