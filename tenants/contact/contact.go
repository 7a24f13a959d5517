// Package contact normalises e-mail addresses and phone numbers, the two identifiers a
// person is matched by (docs/API.md §3.4). Every path that takes one (intake, consent reads,
// unsubscribe, erasure, export, bulk erasure, the admin's person search) goes through
// NormaliseEmail and NormalisePhone, so that a person is found whichever way they were written.
package contact

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// MaxEmailLength is the longest e-mail address accepted (RFC 5321 path limit).
const MaxEmailLength = 254

// NormaliseEmail returns the match form of an e-mail address and whether s is a bare,
// well-formed address: at most 254 characters, one '@', a non-empty local part, a domain with
// a dot, no white space, no display name, and no control or invisible format character (Unicode
// category Cf: zero-width space, bidi marks), which would make two addresses that look the same
// match differently. The match form is Unicode NFC, lower-cased, its domain in the Unicode form
// IDNA maps it to (so "jane@xn--bcher-kva.de" and "Jane@BÜCHER.de" are one address); a domain
// IDNA refuses (an underscore, say) is kept lower-cased as written.
func NormaliseEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 4*MaxEmailLength || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || strings.ContainsRune("<>()[]\\,;:\"", r) {
			return "", false
		}
	}
	s = norm.NFC.String(s)
	if utf8.RuneCountInString(s) > MaxEmailLength {
		return "", false
	}
	at := strings.IndexByte(s, '@')
	if at <= 0 || at != strings.LastIndexByte(s, '@') {
		return "", false
	}
	local, domain := s[:at], s[at+1:]
	if utf8.RuneCountInString(local) > 64 || !strings.Contains(domain, ".") {
		return "", false
	}
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return "", false
	}
	for _, label := range strings.Split(domain, ".") {
		if label == "" || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "", false
		}
	}
	return strings.ToLower(local) + "@" + matchDomain(domain), true
}

// matchDomain is the Unicode form of domain that IDNA's lookup profile maps it to, or domain
// lower-cased when the profile refuses it.
func matchDomain(domain string) string {
	if ascii, err := idna.Lookup.ToASCII(domain); err == nil {
		if u, err := idna.Lookup.ToUnicode(ascii); err == nil {
			return norm.NFC.String(u)
		}
	}
	return strings.ToLower(domain)
}

// maxPhoneInput bounds the text a phone number is read from.
const maxPhoneInput = 64

// NormalisePhone returns the E.164 form of a phone number and whether s is one, read with
// libphonenumber: in international form ('+' or "00", then the country code), or — when
// defaultCountry (ISO 3166 alpha-2, e.g. "DE") is given — in that country's national form
// ("0151 1234 5678"). Digits may be grouped by spaces, hyphens, dots, slashes and parentheses,
// and a national trunk prefix written "(0)" is understood ("+44 (0)20 7946 0958" is
// +442079460958). The number must be a possible full number for its country
// (phonenumbers.IS_POSSIBLE: a local-only length is not enough). Letters, extensions and
// anything else are refused.
func NormalisePhone(s, defaultCountry string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxPhoneInput {
		return "", false
	}
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9', strings.ContainsRune(" -./()", r):
		case r == '+' && i == 0:
		default:
			return "", false
		}
	}
	region := "ZZ"
	switch {
	case strings.HasPrefix(s, "+"):
	case strings.HasPrefix(s, "00"):
		s = "+" + s[2:]
	case defaultCountry == "":
		return "", false
	default:
		region = strings.ToUpper(defaultCountry)
	}
	num, err := phonenumbers.Parse(s, region)
	if err != nil || num.GetExtension() != "" || phonenumbers.IsPossibleNumberWithReason(num) != phonenumbers.IS_POSSIBLE {
		return "", false
	}
	return phonenumbers.Format(num, phonenumbers.E164), true
}

// ValidCountry reports whether code is a region libphonenumber knows (ISO 3166 alpha-2, any case).
func ValidCountry(code string) bool {
	return len(code) == 2 && phonenumbers.GetSupportedRegions()[strings.ToUpper(code)]
}

// IsIP reports whether s is an IPv4 or IPv6 address.
func IsIP(s string) bool {
	_, err := netip.ParseAddr(strings.TrimSpace(s))
	return err == nil
}
