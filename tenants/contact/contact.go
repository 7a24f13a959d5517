// Package contact normalises e-mail addresses and phone numbers, the two identifiers a
// person is matched by (docs/API.md §3.4).
package contact

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxEmailLength is the longest e-mail address accepted (RFC 5321 path limit).
const MaxEmailLength = 254

// NormaliseEmail returns the match form of an e-mail address (trimmed, lower-cased) and
// whether s is a bare, well-formed address: at most 254 characters, one '@', a non-empty
// local part, a domain with a dot, no white space, no display name.
func NormaliseEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxEmailLength || !utf8.ValidString(s) {
		return "", false
	}
	at := strings.IndexByte(s, '@')
	if at <= 0 || at != strings.LastIndexByte(s, '@') {
		return "", false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || !strings.Contains(domain, ".") {
		return "", false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("<>()[]\\,;:\"", r) {
			return "", false
		}
	}
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return "", false
	}
	for _, label := range strings.Split(domain, ".") {
		if label == "" || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// NormalisePhone returns the E.164 form of a phone number and whether s is one: '+', a
// country code not starting with 0, 7 to 15 digits in all. Spaces, hyphens, dots and
// parentheses are stripped first.
func NormalisePhone(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "+") || len(s) > 64 {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('+')
	for _, r := range s[1:] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	out := b.String()
	digits := len(out) - 1
	if digits < 7 || digits > 15 || out[1] == '0' {
		return "", false
	}
	return out, true
}

// IsIP reports whether s is an IPv4 or IPv6 address.
func IsIP(s string) bool {
	_, err := netip.ParseAddr(strings.TrimSpace(s))
	return err == nil
}
