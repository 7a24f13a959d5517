package unsubscribe

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sendGridTolerance is how far a signed timestamp may be from now. SendGrid documents no
// window; five minutes bounds the replay of a captured request while allowing for clock skew.
const sendGridTolerance = 5 * time.Minute

var (
	errPublicKey = errors.New("invalid SendGrid verification key")
	errSignature = errors.New("invalid SendGrid signature")
	errTimestamp = errors.New("invalid or stale SendGrid timestamp")
)

// VerifySendGrid checks SendGrid's signed event webhook: an ECDSA P-256 signature (base64 DER,
// header X-Twilio-Email-Event-Webhook-Signature) over the timestamp header
// (X-Twilio-Email-Event-Webhook-Timestamp) concatenated with the raw body, with the tenant's
// public key (base64 DER SubjectPublicKeyInfo as SendGrid shows it, or PEM). Timestamps older
// than 5 minutes or more than 5 minutes in the future relative to now are refused.
func VerifySendGrid(publicKey, signature, timestamp string, body []byte, now time.Time) error {
	pub, err := parsePublicKey(publicKey)
	if err != nil {
		return err
	}
	if err := checkTimestamp(timestamp, now); err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(sig) == 0 {
		return fmt.Errorf("%w: not base64", errSignature)
	}
	// SendGrid signs SHA-256(timestamp || payload), the timestamp exactly as sent in its header.
	h := sha256.New()
	h.Write([]byte(timestamp))
	h.Write(body)
	if !ecdsa.VerifyASN1(pub, h.Sum(nil), sig) {
		return errSignature
	}
	return nil
}

// ParsePublicKey validates a public key as an admin would paste it (base64 DER or PEM, ECDSA
// P-256), returning it normalised to base64 DER.
func ParsePublicKey(s string) (string, error) {
	pub, err := parsePublicKey(s)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errPublicKey, err)
	}
	return base64.StdEncoding.EncodeToString(der), nil
}

func parsePublicKey(s string) (*ecdsa.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: empty", errPublicKey)
	}
	var der []byte
	if strings.Contains(s, "-----BEGIN") {
		block, rest := pem.Decode([]byte(s))
		if block == nil || block.Type != "PUBLIC KEY" || len(bytes.TrimSpace(rest)) != 0 {
			return nil, fmt.Errorf("%w: expected one PEM \"PUBLIC KEY\" block", errPublicKey)
		}
		der = block.Bytes
	} else {
		// A pasted key may be wrapped over several lines, or lose its padding.
		compact := strings.Join(strings.Fields(s), "")
		var err error
		if der, err = base64.StdEncoding.DecodeString(compact); err != nil {
			if der, err = base64.RawStdEncoding.DecodeString(compact); err != nil {
				return nil, fmt.Errorf("%w: not base64 or PEM", errPublicKey)
			}
		}
	}
	key, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: not a SubjectPublicKeyInfo", errPublicKey)
	}
	pub, ok := key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%w: not an ECDSA P-256 key", errPublicKey)
	}
	return pub, nil
}

// checkTimestamp accepts Unix seconds in decimal within sendGridTolerance of now.
func checkTimestamp(timestamp string, now time.Time) error {
	if len(timestamp) == 0 || len(timestamp) > 12 {
		return errTimestamp
	}
	for _, r := range timestamp {
		if r < '0' || r > '9' {
			return errTimestamp
		}
	}
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errTimestamp
	}
	skew := now.Sub(time.Unix(sec, 0))
	if skew > sendGridTolerance || skew < -sendGridTolerance {
		return fmt.Errorf("%w: %s from now", errTimestamp, skew.Round(time.Second))
	}
	return nil
}
