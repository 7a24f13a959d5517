// Package links makes and reads the links a person opens without credentials: the
// confirmation of a double opt-in (/c/{token}) and the withdrawal of consent (/w/{token})
// (docs/API.md §13). A token names a tenant, a record and (for a confirmation) a consent and
// its end, signed with HMAC-SHA256 under a server key that never lives in the database; it
// holds ids only, never an address, a number or a name. Nothing is stored to make one: the
// same record gives the same token, so a read can show it again.
package links

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// The kinds of token.
const (
	KindConfirm  = "c"
	KindWithdraw = "w"
)

// ErrInvalid is a token that is malformed or not signed by this server's key.
var ErrInvalid = errors.New("links: invalid token")

// Claims is what a token says.
type Claims struct {
	Kind     string // KindConfirm or KindWithdraw
	TenantID string
	Record   tenants.Kind
	PublicID string
	// Consent and Expires are a confirmation token's: the consent it confirms and its end.
	Consent tenants.ConsentName
	Expires time.Time
}

// RecordID is the storage id of the record the token names.
func (c Claims) RecordID() string { return tenants.RecordID(c.TenantID, c.Record, c.PublicID) }

// Signer signs and verifies tokens.
type Signer struct{ m tenants.MAC }

// NewSigner returns a signer whose key is derived from secret (the server's HMAC key), so
// that a token's signature never equals a match key made with the same secret.
func NewSigner(secret []byte) *Signer {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("consentforms links v1"))
	return &Signer{m: tenants.NewMAC(m.Sum(nil))}
}

// sep separates a token's fields: no id alphabet holds it.
const sep = "|"

// Sign makes the token of c.
func (s *Signer) Sign(c Claims) string {
	fields := []string{c.Kind, c.TenantID, string(c.Record), c.PublicID}
	if c.Kind == KindConfirm {
		fields = append(fields, string(c.Consent), strconv.FormatInt(c.Expires.Unix(), 36))
	}
	body := []byte(strings.Join(fields, sep))
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *Signer) mac(body []byte) []byte {
	return s.m.Sum(body)[:18]
}

// Parse verifies token and returns its claims (ErrInvalid when it is malformed or its
// signature fails). It does not judge expiry or use: the caller knows the time and the store.
func (s *Signer) Parse(token string) (Claims, error) {
	b64, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 1024 {
		return Claims{}, ErrInvalid
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(body)) {
		return Claims{}, ErrInvalid
	}
	f := strings.Split(string(body), sep)
	switch {
	case len(f) == 4 && f[0] == KindWithdraw:
		return Claims{Kind: KindWithdraw, TenantID: f[1], Record: tenants.Kind(f[2]), PublicID: f[3]}, nil
	case len(f) == 6 && f[0] == KindConfirm:
		exp, err := strconv.ParseInt(f[5], 36, 64)
		if err != nil {
			return Claims{}, ErrInvalid
		}
		return Claims{Kind: KindConfirm, TenantID: f[1], Record: tenants.Kind(f[2]), PublicID: f[3],
			Consent: tenants.ConsentName(f[4]), Expires: time.Unix(exp, 0).UTC()}, nil
	}
	return Claims{}, ErrInvalid
}

// ID is the token's identity in the store of spent tokens: a hash of it, so that the store
// never holds a usable token.
func ID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16])
}

// Links builds the absolute URLs of tokens.
type Links struct {
	Signer *Signer
	// PublicURL is the service's public base (CONSENTFORMS_PUBLIC_URL, e.g.
	// https://forms.example.org, or the default the server derives from its listen address).
	// It is the only base links have: never a request's Host or forwarded headers, which a
	// client chooses, so that no one can make the service mail a person a link to their host.
	PublicURL string
}

// base is the base URL of every link.
func (l *Links) base(context.Context) string {
	return strings.TrimRight(l.PublicURL, "/")
}

// ConfirmURL is the confirmation link of rec's pending consent name ("" when it has no end).
func (l *Links) ConfirmURL(ctx context.Context, rec tenants.Record, name tenants.ConsentName) string {
	con := rec.Consents.ByName(name)
	if l == nil || con == nil || con.ConfirmBy == nil {
		return ""
	}
	return l.base(ctx) + "/c/" + l.Signer.Sign(Claims{Kind: KindConfirm, TenantID: rec.TenantID, Record: rec.Kind,
		PublicID: rec.PublicID, Consent: name, Expires: *con.ConfirmBy})
}

// PreferencesURL is rec's preference link at now: the person's page of the consents they hold
// at the tenant, opened by the withdrawal token ("" when the record holds no consent granted or
// pending, or is anonymised).
func (l *Links) PreferencesURL(ctx context.Context, rec tenants.Record, now time.Time) string {
	if l == nil || rec.AnonymisedAt != nil {
		return ""
	}
	for _, c := range rec.Consents.All() {
		if c.StatusAt(now) == tenants.StatusGranted || c.PendingAt(now) {
			return l.base(ctx) + "/p/" + l.Signer.Sign(Claims{Kind: KindWithdraw, TenantID: rec.TenantID, Record: rec.Kind, PublicID: rec.PublicID})
		}
	}
	return ""
}

// PreferencesOf is the preference page of a withdrawal link: the same token under /p/.
func PreferencesOf(withdrawURL string) string {
	i := strings.LastIndex(withdrawURL, "/w/")
	if i < 0 {
		return withdrawURL
	}
	return withdrawURL[:i] + "/p/" + withdrawURL[i+len("/w/"):]
}

// WithdrawURL is rec's withdrawal link at now ("" when it has no general contact granted or
// pending).
func (l *Links) WithdrawURL(ctx context.Context, rec tenants.Record, now time.Time) string {
	if l == nil || !rec.Consents.Withdrawable(now) {
		return ""
	}
	return l.base(ctx) + "/w/" + l.Signer.Sign(Claims{Kind: KindWithdraw, TenantID: rec.TenantID, Record: rec.Kind, PublicID: rec.PublicID})
}
