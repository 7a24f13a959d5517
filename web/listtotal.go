package web

import (
	"strconv"
	"strings"
)

// ListTotal is how many rows a filtered list holds, counted up to a bound so that a total
// never costs a scan: More means "at least N".
type ListTotal struct {
	N    int
	More bool
}

// Text reads "1 submission", "25 submissions" or "1,000+ submissions".
func (t ListTotal) Text(one, many string) string {
	if t.More {
		return thousands(t.N) + "+ " + many
	}
	if t.N == 1 {
		return "1 " + one
	}
	return thousands(t.N) + " " + many
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
