package tenants

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Scopes an API key can hold (docs/API.md §1.3).
const (
	ScopeSubmissionsWrite = "submissions:write"
	ScopeRecordsWrite     = "records:write"
	ScopeSubmissionsRead  = "submissions:read"
	ScopeGDPRAnonymise    = "gdpr:anonymise"
	ScopeUnsubscribeWrite = "unsubscribe:write"
	ScopeGDPRExport       = "gdpr:export"
	ScopeAll              = "all"
)

// allScopes lists every scope in display order.
var allScopes = []string{ScopeSubmissionsWrite, ScopeRecordsWrite, ScopeSubmissionsRead, ScopeGDPRAnonymise, ScopeUnsubscribeWrite, ScopeGDPRExport, ScopeAll}

// AllScopes returns them afresh: a caller may change its copy.
func AllScopes() []string { return slices.Clone(allScopes) }

// APIKey is a tenant's API key. Only the SHA-256 of its secret is stored: the secret
// carries 160 random bits, so a fast hash resists guessing as well as a slow one would.
type APIKey struct {
	ID         string     `json:"id"`
	TenantID   string     `json:"tenantId"`
	Name       string     `json:"name"`
	Hash       string     `json:"hash"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	// Publishable marks a key meant to live in a web page (publishable.go): it holds only
	// submissions:write, for Forms, from Origins.
	Publishable bool     `json:"publishable,omitempty"`
	Forms       []string `json:"forms,omitempty"`
	Origins     []string `json:"origins,omitempty"`
}

// Usable reports whether the key may authenticate at now.
func (k APIKey) Usable(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Prefix is the visible, non-secret part of the key shown in lists.
func (k APIKey) Prefix() string {
	if k.Publishable {
		return publishablePrefix + k.ID + "_"
	}
	return keyPrefix + k.ID + "_"
}

const keyPrefix = "cf_"

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewAPIKey creates a key with a random id and secret and returns it with its plaintext,
// which is shown once and never stored.
func NewAPIKey(tenantID, name string, scopes []string, expiresAt *time.Time, now time.Time) (APIKey, string, error) {
	if err := ValidateScopes(scopes); err != nil {
		return APIKey{}, "", err
	}
	id, secret, plain, err := newCredential(keyPrefix)
	if err != nil {
		return APIKey{}, "", err
	}
	k := APIKey{
		ID: id, TenantID: tenantID, Name: name, Hash: hashSecret(secret),
		Scopes: slices.Compact(slices.Sorted(slices.Values(scopes))), CreatedAt: now, ExpiresAt: expiresAt,
	}
	return k, plain, nil
}

// ParseAPIKey splits a plaintext key into its id and secret.
// A publishable key ("cf_pk_…") parses too; PresentedPublishable tells the kinds apart.
func ParseAPIKey(plain string) (id, secret string, ok bool) {
	if id, secret, ok := parseCredential(publishablePrefix, plain); ok {
		return id, secret, true
	}
	return parseCredential(keyPrefix, plain)
}

// newCredential makes a credential "<prefix><16 hex id>_<32 base32 secret>": 64 random bits
// of id, 160 of secret.
func newCredential(prefix string) (id, secret, plain string, err error) {
	idb, sb := make([]byte, 8), make([]byte, 20)
	if _, err := rand.Read(idb); err != nil {
		return "", "", "", fmt.Errorf("credential id: %w", err)
	}
	if _, err := rand.Read(sb); err != nil {
		return "", "", "", fmt.Errorf("credential secret: %w", err)
	}
	id, secret = hex.EncodeToString(idb), lowerBase32.EncodeToString(sb)
	return id, secret, prefix + id + "_" + secret, nil
}

func parseCredential(prefix, plain string) (id, secret string, ok bool) {
	rest, found := strings.CutPrefix(plain, prefix)
	if !found {
		return "", "", false
	}
	id, secret, found = strings.Cut(rest, "_")
	return id, secret, found && len(id) == 16 && len(secret) == 32
}

// Verify reports, in constant time, whether secret is the key's secret.
func (k APIKey) Verify(secret string) bool {
	return subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(k.Hash)) == 1
}

func hashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ValidateScopes checks that scopes is non-empty and holds only known scopes.
func ValidateScopes(scopes []string) error {
	if len(scopes) == 0 {
		return fmt.Errorf("at least one scope is required")
	}
	for _, s := range scopes {
		if !slices.Contains(allScopes, s) {
			return fmt.Errorf("unknown scope %q", s)
		}
	}
	return nil
}
