package anonymise

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/consentforms/consentforms/tenants/contact"
)

// PersonalValue reports whether a string value is an e-mail address, a phone number or an
// IP address — or holds one inside free text ("call me on +49 151 2345 6789"), because a
// custom field under a neutral name must not carry an identifier past anonymisation.
// Phone numbers are recognised in international form only (a '+' and 7 or more digits);
// a national number such as "030 1234567" cannot be told from other digits.
func PersonalValue(s string) bool {
	if _, ok := contact.NormaliseEmail(s); ok {
		return true
	}
	if _, ok := contact.NormalisePhone(s); ok {
		return true
	}
	if isAddr(strings.TrimSpace(s)) {
		return true
	}
	return containsEmail(s) || containsPhone(s) || containsIP(s)
}

// containsEmail reports whether an e-mail address occurs anywhere in s. Around each '@'
// it tries the longest run of address characters, then the run of the usual ones
// (letters, digits, ._%+-), each cut to the 64 characters a local part may have.
func containsEmail(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		end := i + 1
		for end < len(s) && isDomainChar(s[end]) {
			end++
		}
		domain := strings.Trim(s[i+1:end], ".-")
		for _, isChar := range []func(byte) bool{isLocalChar, isPlainLocalChar} {
			start := i
			for start > 0 && isChar(s[start-1]) {
				start--
			}
			local := s[start:i]
			if len(local) > 64 {
				local = local[len(local)-64:]
			}
			if _, ok := contact.NormaliseEmail(strings.Trim(local, ".") + "@" + domain); ok {
				return true
			}
		}
	}
	return false
}

func isPlainLocalChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._%+-", c) >= 0
}

func isDomainChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c >= 0x80
}

func isLocalChar(c byte) bool {
	return isDomainChar(c) || strings.IndexByte("_+%!#$&'*=?^`{|}~/", c) >= 0
}

// containsPhone reports whether s holds a '+' that does not follow a letter or digit,
// then a non-zero digit and at least 7 digits in all, separated only by the characters
// contact.NormalisePhone strips. Longer runs count too: any 7 to 15 of them would be a
// number in E.164.
func containsPhone(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '+' || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		digits := 0
		for j := i + 1; j < len(s); j++ {
			c := s[j]
			if c >= '0' && c <= '9' {
				if digits == 0 && c == '0' {
					break
				}
				digits++
				continue
			}
			if strings.IndexByte(" -.()", c) < 0 {
				break
			}
		}
		if digits >= 7 {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// containsIP reports whether a word of s is an IP address, with or without a port or
// brackets ("10.0.0.1:8080", "[2001:db8::1]:443", "ip:10.0.0.1"), also inside a URL. The
// unspecified addresses ("::", "0.0.0.0") identify no one and are ignored.
func containsIP(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;()<>{}\"'`|/=&?", r)
	})
	for _, w := range words {
		candidates := append([]string{w, strings.Trim(w, ".!:"), strings.Trim(w, "[]")}, strings.Split(w, ":")...)
		for _, c := range candidates {
			if isAddr(strings.TrimRight(c, ".!")) {
				return true
			}
		}
		if ap, err := netip.ParseAddrPort(w); err == nil && !ap.Addr().IsUnspecified() {
			return true
		}
	}
	return false
}

func isAddr(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && !a.IsUnspecified()
}
