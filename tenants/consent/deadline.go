package consent

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// errDate is wrapped by every ParseDeadlineDate error.
var errDate = errors.New("invalid deadline date")

// maxYear is the last year a deadline may fall in: RFC 3339 (and encoding/json) cannot write later ones.
const maxYear = 9999

// ParseDeadlineDate parses an RFC 3339 / ISO 8601 date-time (no offset = UTC; fractional
// seconds, "T" or space separator, with or without seconds) or a date alone ("2027-01-31" =
// the end of that day, 23:59:59 UTC). The result is in UTC.
func ParseDeadlineDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) < len("2006-01-02") || len(s) > 64 {
		return time.Time{}, fmt.Errorf("%w: %q", errDate, s)
	}
	y, okY := number(s, 0, 4)
	m, okM := number(s, 5, 7)
	d, okD := number(s, 8, 10)
	if !okY || !okM || !okD || s[4] != '-' || s[7] != '-' || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return time.Time{}, fmt.Errorf("%w: bad date %q", errDate, s)
	}
	if len(s) == 10 {
		return time.Date(y, time.Month(m), d, 23, 59, 59, 0, time.UTC), nil
	}
	if sep := s[10]; sep != 'T' && sep != 't' && sep != ' ' {
		return time.Time{}, fmt.Errorf("%w: bad separator in %q", errDate, s)
	}
	hh, okH := number(s, 11, 13)
	mm, okMin := number(s, 14, 16)
	if !okH || !okMin || s[13] != ':' || hh > 23 || mm > 59 {
		return time.Time{}, fmt.Errorf("%w: bad time in %q", errDate, s)
	}
	rest := s[16:]
	sec, nsec := 0, 0
	if strings.HasPrefix(rest, ":") {
		var ok bool
		if sec, ok = number(rest, 1, 3); !ok || sec > 59 {
			return time.Time{}, fmt.Errorf("%w: bad seconds in %q", errDate, s)
		}
		rest = rest[3:]
		if rest != "" && (rest[0] == '.' || rest[0] == ',') {
			end := digitsAt(rest, 1)
			if end == 1 {
				return time.Time{}, fmt.Errorf("%w: bad fraction in %q", errDate, s)
			}
			nsec = fractionNanos(rest[1:end])
			rest = rest[end:]
		}
	}
	offset, ok := parseOffset(rest)
	if !ok {
		return time.Time{}, fmt.Errorf("%w: bad offset in %q", errDate, s)
	}
	t := time.Date(y, time.Month(m), d, hh, mm, sec, nsec, time.FixedZone("", offset)).UTC()
	if t.Year() < 0 || t.Year() > maxYear {
		return time.Time{}, fmt.Errorf("%w: year out of range in %q", errDate, s)
	}
	return t, nil
}

// number parses the decimal digits s[from:to]; false if out of range or not all digits.
func number(s string, from, to int) (int, bool) {
	if to > len(s) {
		return 0, false
	}
	n := 0
	for i := from; i < to; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// daysIn is the number of days of month m in year y (proleptic Gregorian).
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// fractionNanos turns the digits after a decimal point into nanoseconds, truncating beyond nine.
func fractionNanos(digits string) int {
	n := 0
	for i := 0; i < 9; i++ {
		n *= 10
		if i < len(digits) {
			n += int(digits[i] - '0')
		}
	}
	return n
}

// parseOffset parses "", "Z", "z", "±hh:mm", "±hhmm" or "±hh" into seconds east of UTC.
func parseOffset(s string) (int, bool) {
	switch s {
	case "", "Z", "z":
		return 0, true
	}
	sign := 1
	switch s[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return 0, false
	}
	hh, ok := number(s, 1, 3)
	if !ok || hh > 23 {
		return 0, false
	}
	mm := 0
	switch rest := s[3:]; {
	case rest == "":
	case len(rest) == 3 && rest[0] == ':':
		mm, ok = number(rest, 1, 3)
	case len(rest) == 2:
		mm, ok = number(rest, 0, 2)
	default:
		ok = false
	}
	if !ok || mm > 59 {
		return 0, false
	}
	return sign * (hh*3600 + mm*60), true
}

// Deadline computes a consent's effective deadline from the raw JSON values of its _date and
// _interval keys (nil = key absent): ok=false means invalid. Both absent → nil deadline, ok.
// Both given → the earlier of the date and now+interval. A deadline not strictly after now is
// invalid, and so is one beyond the year 9999.
func Deadline(date, interval any, now time.Time) (deadline *time.Time, present bool, ok bool) {
	if date == nil && interval == nil {
		return nil, false, true
	}
	var best *time.Time
	if date != nil {
		s, isString := date.(string)
		if !isString {
			return nil, true, false
		}
		t, err := ParseDeadlineDate(s)
		if err != nil || !t.After(now) {
			return nil, true, false
		}
		best = &t
	}
	if interval != nil {
		s, isString := interval.(string)
		if !isString {
			return nil, true, false
		}
		iv, err := ParseInterval(s)
		if err != nil {
			return nil, true, false
		}
		t, ok := iv.From(now)
		if !ok || !t.After(now) {
			return nil, true, false
		}
		if best == nil || t.Before(*best) {
			best = &t
		}
	}
	return best, true, true
}
