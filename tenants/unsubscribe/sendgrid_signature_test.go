package unsubscribe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

type signer struct {
	key    *ecdsa.PrivateKey
	public string // base64 DER, as SendGrid displays it
}

func newSigner(t testing.TB) signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return signer{key: key, public: base64.StdEncoding.EncodeToString(der)}
}

// sign does what SendGrid does: ECDSA over SHA-256(timestamp || payload), base64 of the DER.
func (s signer) sign(t testing.TB, timestamp string, body []byte) string {
	t.Helper()
	h := sha256.Sum256(append([]byte(timestamp), body...))
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

func (s signer) pem(t testing.TB) string {
	der, err := base64.StdEncoding.DecodeString(s.public)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func TestVerifySendGrid(t *testing.T) {
	now := time.Date(2024, 4, 9, 12, 0, 0, 0, time.UTC)
	ts := strconv.FormatInt(now.Unix(), 10)
	body := readTestdata(t, "sendgrid_batch.json")
	s, other := newSigner(t), newSigner(t)
	sig := s.sign(t, ts, body)

	tests := []struct {
		name         string
		key, sig, ts string
		body         []byte
		now          time.Time
		wantErr      error
	}{
		{"valid", s.public, sig, ts, body, now, nil},
		{"valid PEM key", s.pem(t), sig, ts, body, now, nil},
		{"4m59s old", s.public, sig, ts, body, now.Add(299 * time.Second), nil},
		{"clock 4m ahead of us", s.public, sig, ts, body, now.Add(-4 * time.Minute), nil},
		{"tampered body", s.public, sig, ts, append([]byte(" "), body...), now, errSignature},
		{"tampered timestamp", s.public, sig, strconv.FormatInt(now.Unix()+1, 10), body, now, errSignature},
		{"wrong key", other.public, sig, ts, body, now, errSignature},
		{"old timestamp", s.public, s.sign(t, "1712656800", body), "1712656800", body, now.Add(time.Hour), errTimestamp},
		{"5m01s old", s.public, sig, ts, body, now.Add(301 * time.Second), errTimestamp},
		{"future timestamp", s.public, sig, ts, body, now.Add(-6 * time.Minute), errTimestamp},
		{"timestamp not a number", s.public, s.sign(t, "soon", body), "soon", body, now, errTimestamp},
		{"signed timestamp", s.public, s.sign(t, "+"+ts, body), "+" + ts, body, now, errTimestamp},
		{"empty timestamp", s.public, sig, "", body, now, errTimestamp},
		{"garbage signature", s.public, "not base64!", ts, body, now, errSignature},
		{"base64 garbage signature", s.public, base64.StdEncoding.EncodeToString([]byte("garbage")), ts, body, now, errSignature},
		{"empty signature", s.public, "", ts, body, now, errSignature},
		{"no key", "", sig, ts, body, now, errPublicKey},
		{"garbage key", "MFkwEwYHKo", sig, ts, body, now, errPublicKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifySendGrid(tt.key, tt.sig, tt.ts, tt.body, tt.now)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("VerifySendGrid: %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("VerifySendGrid error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestVerifySendGridPublishedVector checks interoperability with the key, signature and
// payload SendGrid's own libraries test their verifier with.
func TestVerifySendGridPublishedVector(t *testing.T) {
	const (
		key       = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA=="
		signature = "MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0="
		timestamp = "1588788367"
		payload   = `{"category":"example_payload","event":"test_event","message_id":"message_id"}`
	)
	now := time.Unix(1588788367, 0).Add(time.Minute)
	if err := VerifySendGrid(key, signature, timestamp, []byte(payload), now); err != nil {
		t.Fatalf("VerifySendGrid: %v", err)
	}
	if err := VerifySendGrid(key, signature, timestamp, []byte(payload+" "), now); err == nil {
		t.Fatal("VerifySendGrid accepted a changed payload")
	}
}

func TestParsePublicKey(t *testing.T) {
	s := newSigner(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
	wrapped := s.public[:40] + "\n" + s.public[40:]

	valid := map[string]string{
		"base64 DER":        s.public,
		"surrounding space": "  " + s.public + "\n",
		"wrapped":           wrapped,
		"unpadded":          strings.TrimRight(s.public, "="),
		"PEM":               s.pem(t),
	}
	for name, in := range valid {
		got, err := ParsePublicKey(in)
		if err != nil {
			t.Errorf("%s: ParsePublicKey: %v", name, err)
		} else if got != s.public {
			t.Errorf("%s: ParsePublicKey = %q, want %q", name, got, s.public)
		}
	}
	invalid := map[string]string{
		"empty":          "",
		"not base64":     "not a key!",
		"not DER":        base64.StdEncoding.EncodeToString([]byte("hello")),
		"RSA":            base64.StdEncoding.EncodeToString(rsaDER),
		"P-384":          base64.StdEncoding.EncodeToString(p384DER),
		"PEM wrong type": strings.ReplaceAll(s.pem(t), "PUBLIC KEY", "CERTIFICATE"),
		"PEM trailing":   s.pem(t) + "junk",
		"truncated":      s.public[:len(s.public)-8],
	}
	for name, in := range invalid {
		if got, err := ParsePublicKey(in); !errors.Is(err, errPublicKey) {
			t.Errorf("%s: ParsePublicKey = %q, %v; want errPublicKey", name, got, err)
		}
	}
}

func FuzzParsePublicKey(f *testing.F) {
	s := newSigner(f)
	f.Add(s.public)
	f.Add(s.pem(f))
	f.Add("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA==")
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ParsePublicKey(in)
		if err != nil {
			return
		}
		again, err := ParsePublicKey(out)
		if err != nil || again != out {
			t.Fatalf("normalised key %q does not parse to itself: %q, %v", out, again, err)
		}
	})
}
