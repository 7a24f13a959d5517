package unsubscribe

import (
	"crypto/ed25519"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// twilioDocsExample is the request of Twilio's "Validating requests" guide (auth token
// 12345): its current edition uses caller +14158675310, an older one +12349013030.
func twilioDocsExample(caller string) url.Values {
	return url.Values{"CallSid": {"CA1234567890ABCDE"}, "Caller": {caller}, "Digits": {"1234"},
		"From": {caller}, "To": {"+18005551212"}}
}

func TestVerifyTwilio(t *testing.T) {
	const docsURL = "https://mycompany.com/myapp.php?foo=1&bar=2"
	stop, _ := url.ParseQuery(string(readTestdata(t, "twilio_stop.form")))
	const hook = "https://forms.example.org/api/v1/twilio/unsubscribe?tenant=t1"
	good := TwilioSignature("token-1", hook, stop)
	tampered := url.Values{}
	for k, v := range stop {
		tampered[k] = v
	}
	tampered.Set("From", "+14155550199")
	tests := []struct {
		name, token, sig, url string
		form                  url.Values
		ok                    bool
	}{
		{"published example", "12345", "GvWf1cFY/Q7PnoempGyD5oXAezc=", docsURL, twilioDocsExample("+14158675310"), true},
		{"published example, older edition", "12345", "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", docsURL, twilioDocsExample("+12349013030"), true},
		{"published example, default port added", "12345", "GvWf1cFY/Q7PnoempGyD5oXAezc=", "https://mycompany.com:443/myapp.php?foo=1&bar=2", twilioDocsExample("+14158675310"), true},
		{"published example, wrong token", "54321", "GvWf1cFY/Q7PnoempGyD5oXAezc=", docsURL, twilioDocsExample("+14158675310"), false},
		{"published example, tampered", "12345", "GvWf1cFY/Q7PnoempGyD5oXAezc=", docsURL, twilioDocsExample("+14158675311"), false},
		{"inbound STOP", "token-1", good, hook, stop, true},
		{"tampered body", "token-1", good, hook, tampered, false},
		{"other URL", "token-1", good, "https://forms.example.org/api/v1/twilio/unsubscribe?tenant=t2", stop, false},
		{"wrong token", "token-2", good, hook, stop, false},
		{"missing signature", "token-1", "", hook, stop, false},
		{"no token stored", "", good, hook, stop, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyTwilio(tt.token, tt.sig, tt.url, tt.form)
			if (err == nil) != tt.ok {
				t.Errorf("VerifyTwilio = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestVerifyTelnyx(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
	key := base64.StdEncoding.EncodeToString(pub)
	body := readTestdata(t, "telnyx_received.json")
	now := time.Unix(1712672447, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	sign := func(ts string, b []byte) string {
		return base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(ts+"|"+string(b))))
	}
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-3] = ' '
	stale := strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10)
	tests := []struct {
		name, key, sig, ts string
		body               []byte
		want               error // nil, ErrBadSignature or errTimestamp
	}{
		{"good", key, sign(ts, body), ts, body, nil},
		{"4 minutes old", key, sign(strconv.FormatInt(now.Add(-4*time.Minute).Unix(), 10), body), strconv.FormatInt(now.Add(-4*time.Minute).Unix(), 10), body, nil},
		{"tampered body", key, sign(ts, body), ts, tampered, ErrBadSignature},
		{"other key", base64.StdEncoding.EncodeToString(otherPub), sign(ts, body), ts, body, ErrBadSignature},
		{"stale timestamp", key, sign(stale, body), stale, body, errTimestamp},
		{"timestamp not the signed one", key, sign(ts, body), strconv.FormatInt(now.Unix()-1, 10), body, ErrBadSignature},
		{"missing signature", key, "", ts, body, ErrBadSignature},
		{"missing timestamp", key, sign(ts, body), "", body, errTimestamp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyTelnyx(tt.key, tt.sig, tt.ts, tt.body, now)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("VerifyTelnyx = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := ParseTelnyxKey("not a key"); err == nil {
		t.Error("ParseTelnyxKey accepted garbage")
	}
}

func TestVerifyVonageSig(t *testing.T) {
	now := time.Unix(1712672447, 0)
	form, _ := url.ParseQuery(string(readTestdata(t, "vonage_inbound.form")))
	params := map[string]string{}
	for k := range form {
		params[k] = form.Get(k)
	}
	with := func(method, secret string, p map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range p {
			out[k] = v
		}
		out["sig"] = VonageSignature(secret, method, p)
		return out
	}
	// The MD5 hash method by hand: md5("&k=v..." + secret), as Vonage's guide describes it.
	if got := VonageSignature("s3cret", VonageMD5Hash, map[string]string{"b": "x=y", "a": "1&2"}); got != md5hex("&a=1_2&b=x_y"+"s3cret") {
		t.Errorf("md5hash signature %s", got)
	}
	tampered := with(VonageSHA256, "s3cret", params)
	tampered["text"] = "HELP"
	stale := map[string]string{}
	for k, v := range params {
		stale[k] = v
	}
	stale["timestamp"] = strconv.FormatInt(now.Add(-10*time.Minute).Unix(), 10)
	tests := []struct {
		name, secret string
		params       map[string]string
		want         error
	}{
		{"md5hash", "s3cret", with(VonageMD5Hash, "s3cret", params), nil},
		{"md5 hmac", "s3cret", with(VonageMD5, "s3cret", params), nil},
		{"sha1 hmac", "s3cret", with(VonageSHA1, "s3cret", params), nil},
		{"sha256 hmac", "s3cret", with(VonageSHA256, "s3cret", params), nil},
		{"sha512 hmac", "s3cret", with(VonageSHA512, "s3cret", params), nil},
		{"tampered text", "s3cret", tampered, ErrBadSignature},
		{"wrong secret", "other", with(VonageSHA256, "s3cret", params), ErrBadSignature},
		{"stale timestamp", "s3cret", with(VonageSHA256, "s3cret", stale), errTimestamp},
		{"no sig", "s3cret", params, ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyVonageSig(tt.secret, tt.params, now)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("VerifyVonageSig = %v, want %v", err, tt.want)
			}
		})
	}
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestVerifyVonageJWT(t *testing.T) {
	now := time.Unix(1712672447, 0)
	body := readTestdata(t, "vonage_messages_inbound.json")
	sum := sha256.Sum256(body)
	token := func(secret string, iat time.Time, hash string, method jwt.SigningMethod) string {
		s, err := jwt.NewWithClaims(method, jwt.MapClaims{"iat": iat.Unix(), "jti": "x", "iss": "Vonage", "payload_hash": hash, "api_key": "abcd1234", "application_id": "aaaaaaaa-bbbb-cccc-dddd-0123456789ab"}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	h := hex.EncodeToString(sum[:])
	tests := []struct {
		name, token string
		body        []byte
		want        error
	}{
		{"good", token("s3cret", now, h, jwt.SigningMethodHS256), body, nil},
		{"tampered body", token("s3cret", now, h, jwt.SigningMethodHS256), append([]byte(" "), body...), ErrBadSignature},
		{"wrong secret", token("other", now, h, jwt.SigningMethodHS256), body, ErrBadSignature},
		{"HS512 refused", token("s3cret", now, h, jwt.SigningMethodHS512), body, ErrBadSignature},
		{"stale", token("s3cret", now.Add(-10*time.Minute), h, jwt.SigningMethodHS256), body, errTimestamp},
		{"garbage", "eyJ.x.y", body, ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyVonageJWT("s3cret", tt.token, tt.body, now)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("VerifyVonageJWT = %v, want %v", err, tt.want)
			}
		})
	}
}
