package anonymise

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/consentforms/consentforms/tenants/contact"
)

// PersonalValue is PersonalValueIn for a tenant without a default country.
func PersonalValue(s string) bool { return personalValue(s, "") }

// PersonalValueIn reports whether a string value is an e-mail address, a phone number, an IP
// address or an IBAN — or holds one inside free text ("call me on +49 151 2345 6789"), because
// a custom field under a neutral name must not carry an identifier past anonymisation. Phone
// numbers are recognised in international form (a '+' and 7 or more digits), and, where the
// tenant has a default country, in national form written with a trunk prefix ("0151 1234
// 5678"); without one a national number cannot be told from other digits.
func PersonalValueIn(s, country string) bool { return personalValue(s, country) }

func personalValue(s, country string) bool {
	if kind, _ := MentionedIdentifier(s, country); kind != "" {
		return true
	}
	if isAddr(strings.TrimSpace(s)) {
		return true
	}
	return containsEmail(s) || containsPhone(s, country != "") || containsIP(s) || containsIBAN(s)
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
// number in E.164. With national, a run of 8 or more digits starting with a single '0' (a
// trunk prefix) after no letter or digit counts too.
func containsPhone(s string, national bool) bool {
	for i := 0; i < len(s); i++ {
		intl := s[i] == '+'
		nat := national && s[i] == '0' && !(i+1 < len(s) && s[i+1] == '0')
		if !(intl || nat) || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		digits, start := 0, i+1
		if nat {
			start = i
		}
		for j := start; j < len(s); j++ {
			c := s[j]
			if c >= '0' && c <= '9' {
				if intl && digits == 0 && c == '0' {
					break
				}
				digits++
				continue
			}
			if strings.IndexByte(" -./()", c) < 0 {
				break
			}
		}
		if (intl && digits >= 7) || (nat && digits >= 8) {
			return true
		}
	}
	return false
}

// containsIBAN reports whether s holds an IBAN at a word start: two capital letters, two
// check digits and 11 to 30 letters or digits, written together or in groups separated by
// single spaces, whose ISO 7064 mod-97 check holds (which makes a chance match unlikely).
func containsIBAN(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if (i > 0 && isAlnum(s[i-1])) || !isUpper(s[i]) || !isUpper(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
			continue
		}
		var b []byte
		for j := i; j < len(s) && len(b) < 34; j++ {
			c := s[j]
			if c == ' ' && j+1 < len(s) && isAlnum(s[j+1]) && !(j > 0 && s[j-1] == ' ') {
				continue
			}
			if !isDigit(c) && !isUpper(c) {
				break
			}
			b = append(b, c)
			end := j+1 == len(s) || !isAlnum(s[j+1])
			if len(b) >= 15 && end && ibanChecks(b) {
				return true
			}
		}
	}
	return false
}

// ibanChecks reports whether the ISO 7064 mod-97 check of an IBAN's characters holds.
func ibanChecks(b []byte) bool {
	rearranged := append(append([]byte{}, b[4:]...), b[:4]...)
	rem := 0
	for _, c := range rearranged {
		if isDigit(c) {
			rem = (rem*10 + int(c-'0')) % 97
		} else {
			rem = (rem*100 + int(c-'A'+10)) % 97
		}
	}
	return rem == 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

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
