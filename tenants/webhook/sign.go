package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// secretPrefix marks a Standard Webhooks signing secret; the rest is base64 of the key.
const secretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign returns the webhook-signature header value of a message: v1, then the base64
// HMAC-SHA256 of "id.timestamp.body" keyed with the secret's decoded bytes.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return "", errors.New("webhook: malformed secret")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Verify checks a delivery as a receiver does (docs/WEBHOOKS.md): one of the space-separated
// v1 signatures must match, and the timestamp must be within tolerance of now.
func Verify(secret, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook: malformed timestamp")
	}
	ts := time.Unix(sec, 0)
	if now.Sub(ts) > tolerance || ts.Sub(now) > tolerance {
		return errors.New("webhook: timestamp outside tolerance")
	}
	want, err := Sign(secret, id, ts, body)
	if err != nil {
		return err
	}
	for _, s := range strings.Fields(signatures) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("webhook: no matching signature")
}
