package consent

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// errInterval is wrapped by every ParseInterval error.
var errInterval = errors.New("invalid interval")

// maxIntervalLen bounds the input so that a hostile string costs nothing to reject.
const maxIntervalLen = 64

// Lengths of the calendar units: CONTRACT.md §3 fixes a month at 30 days, a year at 365.25.
const (
	day   = 24 * time.Hour
	week  = 7 * day
	month = 30 * day
	year  = 365*day + 6*time.Hour
)

// shortUnits are the single-letter (and "ms") units; they are case-sensitive because M ≠ m.
var shortUnits = map[string]time.Duration{
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
	"d": day, "w": week, "M": month, "y": year,
}

// longUnits are the spelled-out units, matched after lower-casing.
var longUnits = map[string]time.Duration{
	"milliseconds": time.Millisecond, "millisecond": time.Millisecond,
	"msecs": time.Millisecond, "msec": time.Millisecond,
	"seconds": time.Second, "second": time.Second, "secs": time.Second, "sec": time.Second,
	"minutes": time.Minute, "minute": time.Minute, "mins": time.Minute, "min": time.Minute,
	"hours": time.Hour, "hour": time.Hour, "hrs": time.Hour, "hr": time.Hour,
	"days": day, "day": day,
	"weeks": week, "week": week,
	"months": month, "month": month, "mo": month,
	"years": year, "year": year, "yrs": year, "yr": year,
}

// ParseInterval parses an ms-style duration ("30d", "3M", "1.5 h", "2 years") or an ISO 8601
// duration ("P30D", "P6M", "P1Y", "PT12H", "P1W", "P1Y2M3DT4H5M6S").
func ParseInterval(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return 0, fmt.Errorf("%w: empty", errInterval)
	case len(s) > maxIntervalLen:
		return 0, fmt.Errorf("%w: too long", errInterval)
	}
	for i := 0; i < len(s); i++ {
		// ASCII only: Unicode case folding would let "ſ" pass for "s" and "K" for "k".
		if s[i] >= 0x80 {
			return 0, fmt.Errorf("%w: non-ASCII character", errInterval)
		}
	}
	if s[0] == 'P' || s[0] == 'p' {
		return parseISODuration(strings.ToUpper(s[1:]))
	}
	return parseMSDuration(s)
}

// parseMSDuration parses "<number>[ ]<unit>" as the ms library writes it.
func parseMSDuration(s string) (time.Duration, error) {
	num, rest, err := cutNumber(s, false)
	if err != nil {
		return 0, err
	}
	rest = strings.TrimPrefix(rest, " ")
	if rest == "" {
		return 0, fmt.Errorf("%w: missing unit", errInterval)
	}
	unit, ok := shortUnits[rest]
	if !ok {
		unit, ok = longUnits[strings.ToLower(rest)]
	}
	if !ok {
		return 0, fmt.Errorf("%w: unknown unit %q", errInterval, rest)
	}
	total := new(big.Rat)
	total.Mul(num, big.NewRat(int64(unit), 1))
	return ratToDuration(total)
}

// parseISODuration parses the part of an ISO 8601 duration after the upper-cased "P":
// [nY][nM][nW][nD][T[nH][nM][nS]], with a decimal fraction allowed on the last component only.
func parseISODuration(s string) (time.Duration, error) {
	datePart, timePart, hasT := strings.Cut(s, "T")
	if hasT && timePart == "" {
		return 0, fmt.Errorf("%w: empty time part", errInterval)
	}
	total := new(big.Rat)
	n, fraction, err := isoComponents(datePart, "YMWD", []time.Duration{year, month, week, day}, total)
	if err != nil {
		return 0, err
	}
	if hasT {
		if fraction {
			return 0, fmt.Errorf("%w: fraction before the last component", errInterval)
		}
		m, _, err := isoComponents(timePart, "HMS", []time.Duration{time.Hour, time.Minute, time.Second}, total)
		if err != nil {
			return 0, err
		}
		n += m
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: no components", errInterval)
	}
	return ratToDuration(total)
}

// isoComponents adds each "<number><designator>" of part to total, designators in order and
// each at most once. It returns how many it read and whether the last carried a fraction.
func isoComponents(part, designators string, units []time.Duration, total *big.Rat) (int, bool, error) {
	n, next, fraction := 0, 0, false
	for part != "" {
		if fraction {
			return 0, false, fmt.Errorf("%w: fraction before the last component", errInterval)
		}
		num, rest, err := cutNumber(part, true)
		if err != nil {
			return 0, false, err
		}
		if rest == "" {
			return 0, false, fmt.Errorf("%w: missing designator", errInterval)
		}
		i := strings.IndexByte(designators[next:], rest[0])
		if i < 0 {
			return 0, false, fmt.Errorf("%w: unexpected designator %q", errInterval, rest[0])
		}
		next += i
		total.Add(total, new(big.Rat).Mul(num, big.NewRat(int64(units[next]), 1)))
		next++
		n++
		fraction = strings.ContainsAny(part[:len(part)-len(rest)], ".,")
		part = rest[1:]
	}
	return n, fraction, nil
}

// cutNumber reads a non-negative decimal number ("12", "1.5"; "1,5" too when comma is set)
// from the front of s and returns it with the rest of s.
func cutNumber(s string, comma bool) (*big.Rat, string, error) {
	i := digitsAt(s, 0)
	if i == 0 {
		return nil, "", fmt.Errorf("%w: missing number", errInterval)
	}
	text := s[:i]
	if i < len(s) && (s[i] == '.' || comma && s[i] == ',') {
		j := digitsAt(s, i+1)
		if j == i+1 {
			return nil, "", fmt.Errorf("%w: missing digits after the decimal point", errInterval)
		}
		text += "." + s[i+1:j]
		i = j
	}
	num, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, "", fmt.Errorf("%w: bad number %q", errInterval, text)
	}
	return num, s[i:], nil
}

// digitsAt returns the index of the first non-digit of s at or after i.
func digitsAt(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// ratToDuration truncates r (in nanoseconds, non-negative) to a Duration, failing on overflow.
func ratToDuration(r *big.Rat) (time.Duration, error) {
	ns := new(big.Int).Quo(r.Num(), r.Denom())
	if !ns.IsInt64() {
		return 0, fmt.Errorf("%w: too long a duration", errInterval)
	}
	return time.Duration(ns.Int64()), nil
}
