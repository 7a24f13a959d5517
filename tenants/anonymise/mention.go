package anonymise

import (
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// RemoveMentions returns a copy of rec without the custom-field values that name the person
// whom is identifies, and how many it removed: the erasure of a person mentioned in someone
// else's record (docs/API.md §5.1). is reports whether an identifier, as MentionedIdentifier
// reads it ("e" or "p" and its normalised form), is that person's. Removed are, at any depth of
// Payload and Fields, each string value that is such an identifier as a whole, each value whose
// key is one, and each free-text value holding one of the addresses or numbers so found. The
// record's own contact data, consents and everything else stay, and it is not marked
// anonymised. The input is not modified.
func RemoveMentions(rec tenants.Record, country string, is func(kind, normalised string) bool) (tenants.Record, int) {
	var found, foundPhones []string
	match := func(s string) bool {
		kind, n := MentionedIdentifier(s, country)
		if kind == "" || !is(kind, n) {
			return false
		}
		if kind == "e" {
			found = append(found, n)
		} else {
			foundPhones = append(foundPhones, n)
		}
		return true
	}
	out := rec
	removed := 0
	for _, m := range []*map[string]any{&out.Payload, &out.Fields} {
		if *m == nil {
			continue
		}
		p, _ := plain(*m)
		*m = p.(map[string]any)
		removed += dropMap(*m, match)
	}
	// A free-text value holding a found address or number ("ask bob@example.org", "call Carl on
	// +49 151 23456789") names them too.
	inText := func(s string) bool {
		low := strings.ToLower(s)
		for _, e := range found {
			if strings.Contains(low, e) {
				return true
			}
		}
		for _, run := range phoneRuns(s) {
			if kind, n := MentionedIdentifier(run, country); kind == "p" && slices.Contains(foundPhones, n) {
				return true
			}
		}
		return false
	}
	if len(found)+len(foundPhones) > 0 {
		for _, m := range []map[string]any{out.Payload, out.Fields} {
			removed += dropMap(m, inText)
		}
	}
	return out, removed
}

// dropMap removes, in place, every entry whose key or string value drop reports, at any
// depth (array elements become nil), and returns how many it removed.
func dropMap(m map[string]any, drop func(string) bool) int {
	n := 0
	for k, v := range m {
		if drop(k) {
			delete(m, k)
			n++
			continue
		}
		if s, ok := v.(string); ok && drop(s) {
			delete(m, k)
			n++
			continue
		}
		n += dropIn(v, drop)
	}
	return n
}

func dropIn(v any, drop func(string) bool) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		n += dropMap(x, drop)
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && drop(s) {
				x[i] = nil
				n++
				continue
			}
			n += dropIn(e, drop)
		}
	}
	return n
}

// phoneRuns returns the runs of s that may be phone numbers: from a '+' or '0' that follows no
// letter or digit, the digits and separators after it, trailing separators cut.
func phoneRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if (s[i] != '+' && s[i] != '0') || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		j := i + 1
		for j < len(s) && (isDigit(s[j]) || strings.IndexByte(" -./()", s[j]) >= 0) {
			j++
		}
		out = append(out, strings.TrimRight(s[i:j], " -./("))
		i = j - 1
	}
	return out
}
