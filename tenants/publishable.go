package tenants

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// publishablePrefix starts a publishable key's plaintext: "cf_pk_<16 hex id>_<secret>".
const publishablePrefix = "cf_pk_"

// PresentedPublishable reports whether a plaintext key is written as a publishable one.
func PresentedPublishable(plain string) bool { return strings.HasPrefix(plain, publishablePrefix) }

// MaxKeyForms and MaxKeyOrigins bound a publishable key's lists.
const (
	MaxKeyForms   = 100
	MaxKeyOrigins = 20
)

// NewPublishableKey creates a key that may live in a web page: scope submissions:write only,
// for the given forms, from the given origins (each already normalised by NormaliseOrigin).
func NewPublishableKey(tenantID, name string, forms, origins []string, expiresAt *time.Time, now time.Time) (APIKey, string, error) {
	id, secret, plain, err := newCredential(publishablePrefix)
	if err != nil {
		return APIKey{}, "", err
	}
	k := APIKey{
		ID: id, TenantID: tenantID, Name: name, Hash: hashSecret(secret), Scopes: []string{ScopeSubmissionsWrite},
		CreatedAt: now, ExpiresAt: expiresAt, Publishable: true,
		Forms: slices.Compact(slices.Sorted(slices.Values(forms))), Origins: slices.Compact(slices.Sorted(slices.Values(origins))),
	}
	return k, plain, nil
}

// AllowsForm reports whether the key may submit to formID: any form for a secret key, its
// own forms for a publishable one.
func (k APIKey) AllowsForm(formID string) bool {
	return !k.Publishable || slices.Contains(k.Forms, formID)
}

// AllowsOrigin reports whether a browser request from origin (the Origin header as sent) may
// use the key. A request without Origin (a server, curl) is no browser's: a publishable key is
// public anyway, and the challenge and the limits guard it.
func (k APIKey) AllowsOrigin(origin string) bool {
	if !k.Publishable || origin == "" {
		return true
	}
	o, err := NormaliseOrigin(origin)
	return err == nil && slices.Contains(k.Origins, o)
}

// NormaliseOrigin reads a web origin, "https://example.org" or "http://localhost:8080", and
// returns it as browsers send it in the Origin header: scheme and host lower-case, no path,
// no default port. Anything else (a path, a wildcard, credentials, "null") is refused.
func NormaliseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	bad := fmt.Errorf("origin %q must be scheme://host[:port], e.g. https://www.example.org", s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.Contains(u.Host, "*") {
		return "", bad
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}
