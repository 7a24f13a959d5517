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

// maxIntervalLen is the longest input read after trimming: ms reads at most 100 characters, and
// the bound keeps a hostile string cheap to reject.
const maxIntervalLen = 100

// Lengths of the calendar units: a month is fixed at 30 days and a year at 365.25 (as ms's year).
const (
	day   = 24 * time.Hour
	week  = 7 * day
	month = 30 * day
	year  = 365*day + 6*time.Hour
)

// units are the ms units (short and long forms, lower case) plus the month words.
var units = map[string]time.Duration{
	"ms": time.Millisecond, "milliseconds": time.Millisecond, "millisecond": time.Millisecond,
	"msecs": time.Millisecond, "msec": time.Millisecond,
	"s": time.Second, "seconds": time.Second, "second": time.Second, "secs": time.Second, "sec": time.Second,
	"m": time.Minute, "minutes": time.Minute, "minute": time.Minute, "mins": time.Minute, "min": time.Minute,
	"h": time.Hour, "hours": time.Hour, "hour": time.Hour, "hrs": time.Hour, "hr": time.Hour,
	"d": day, "days": day, "day": day,
	"w": week, "weeks": week, "week": week,
	"months": month, "month": month, "mo": month,
	"y": year, "years": year, "year": year, "yrs": year, "yr": year,
}

// Interval is a parsed deadline interval: a non-negative length of time, exact to the
// nanosecond. It is not a time.Duration because a deadline may lie more than 292 years ahead.
type Interval struct {
	sec  int64 // whole seconds
	nsec int64 // 0 ≤ nsec < 1e9
}

// From returns the instant iv after now, in UTC; false if it falls after the end of year 9999,
// the last instant RFC 3339 can write.
func (iv Interval) From(now time.Time) (time.Time, bool) {
	sec, nsec := now.Unix(), int64(now.Nanosecond())+iv.nsec
	if nsec >= 1e9 {
		sec, nsec = sec+1, nsec-1e9
	}
	end := time.Date(maxYear+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	// Compared as sec < end-iv.sec, which cannot overflow, so the sum below cannot either.
	if sec >= end-iv.sec {
		return time.Time{}, false
	}
	return time.Unix(sec+iv.sec, nsec).UTC(), true
}

// ParseInterval parses an ms-style duration ("30d", "3M", ".5h", "1.5  h", "2 Years") or an
// ISO 8601 duration ("P30D", "P6M", "P1Y", "PT12H", "P1W", "P1Y2M3DT4H5M6S").
func ParseInterval(s string) (Interval, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Interval{}, fmt.Errorf("%w: empty", errInterval)
	case len(s) > maxIntervalLen:
		return Interval{}, fmt.Errorf("%w: too long", errInterval)
	}
	for i := 0; i < len(s); i++ {
		// ASCII only: ms's \d reads ASCII digits, and Unicode case folding would let "ſ" pass for "s".
		if s[i] >= 0x80 {
			return Interval{}, fmt.Errorf("%w: non-ASCII character", errInterval)
		}
	}
	if s[0] == 'P' || s[0] == 'p' {
		return parseISODuration(strings.ToUpper(s[1:]))
	}
	return parseMSDuration(s)
}

// parseMSDuration parses "<number> <unit>" as ms 2.1.3 reads it: any number of spaces between,
// a unit in any letter case, except that M is a month and m a minute. A unit is required, and a
// negative number is refused because a deadline must lie in the future.
func parseMSDuration(s string) (Interval, error) {
	if s[0] == '-' {
		return Interval{}, fmt.Errorf("%w: negative, so not in the future", errInterval)
	}
	num, rest, err := cutNumber(s, false)
	if err != nil {
		return Interval{}, err
	}
	rest = strings.TrimLeft(rest, " ")
	if rest == "" {
		return Interval{}, fmt.Errorf("%w: missing unit", errInterval)
	}
	unit, ok := unitOf(rest)
	if !ok {
		return Interval{}, fmt.Errorf("%w: unknown unit %q", errInterval, rest)
	}
	return ratToInterval(num.Mul(num, big.NewRat(int64(unit), 1)))
}

// unitOf looks a unit up ignoring case, as ms does, except for the bare M: the month that
// ms lacks needs a letter, and M against m is how deadlines are written.
func unitOf(u string) (time.Duration, bool) {
	if u == "M" {
		return month, true
	}
	d, ok := units[strings.ToLower(u)]
	return d, ok
}

// parseISODuration parses the part of an ISO 8601 duration after the upper-cased "P":
// [nY][nM][nW][nD][T[nH][nM][nS]], with a decimal fraction allowed on the last component only.
func parseISODuration(s string) (Interval, error) {
	datePart, timePart, hasT := strings.Cut(s, "T")
	if hasT && timePart == "" {
		return Interval{}, fmt.Errorf("%w: empty time part", errInterval)
	}
	total := new(big.Rat)
	n, fraction, err := isoComponents(datePart, "YMWD", []time.Duration{year, month, week, day}, total)
	if err != nil {
		return Interval{}, err
	}
	if hasT {
		if fraction {
			return Interval{}, fmt.Errorf("%w: fraction before the last component", errInterval)
		}
		m, _, err := isoComponents(timePart, "HMS", []time.Duration{time.Hour, time.Minute, time.Second}, total)
		if err != nil {
			return Interval{}, err
		}
		n += m
	}
	if n == 0 {
		return Interval{}, fmt.Errorf("%w: no components", errInterval)
	}
	return ratToInterval(total)
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

// cutNumber reads a non-negative decimal number from the front of s and returns it with the
// rest of s. ms reads "12", "1.5" and ".5"; ISO 8601 wants a digit before the decimal sign and
// allows a comma for it ("1,5").
func cutNumber(s string, iso bool) (*big.Rat, string, error) {
	i := digitsAt(s, 0)
	text := "0" + s[:i] // the leading 0 makes ".5" read as 0.5
	if i < len(s) && (s[i] == '.' || iso && s[i] == ',') && (i > 0 || !iso) {
		j := digitsAt(s, i+1)
		if j == i+1 {
			return nil, "", fmt.Errorf("%w: missing digits after the decimal point", errInterval)
		}
		text += "." + s[i+1:j]
		i = j
	}
	if i == 0 {
		return nil, "", fmt.Errorf("%w: missing number", errInterval)
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

// ratToInterval truncates r (in nanoseconds, non-negative) to an Interval. Beyond 2^63 seconds
// (292 billion years) it fails: from any now since year 1 that ends after year 9999.
func ratToInterval(r *big.Rat) (Interval, error) {
	ns := new(big.Int).Quo(r.Num(), r.Denom())
	sec, nsec := ns.QuoRem(ns, big.NewInt(1e9), new(big.Int))
	if !sec.IsInt64() {
		return Interval{}, fmt.Errorf("%w: too long a duration", errInterval)
	}
	return Interval{sec: sec.Int64(), nsec: nsec.Int64()}, nil
}

// IsZero reports whether iv is no time at all.
func (iv Interval) IsZero() bool { return iv.sec == 0 && iv.nsec == 0 }

// defaultConfirmWithin is how long a confirmation link stays valid when the form sets nothing.
const defaultConfirmWithin = 7 * day

// RemindAt is when the reminder of a confirmation asked at created and lapsing at confirmBy
// is due, given the form's setting: "" is half-way, tenants' RemindNone (or an unreadable
// setting) none; a reminder due at or after the lapse is none.
func RemindAt(setting string, created, confirmBy time.Time) (time.Time, bool) {
	at := created.Add(confirmBy.Sub(created) / 2)
	if setting != "" {
		iv, err := ParseInterval(setting)
		if err != nil || iv.IsZero() {
			return time.Time{}, false
		}
		at = created.Add(time.Duration(iv.sec)*time.Second + time.Duration(iv.nsec))
	}
	if !at.Before(confirmBy) {
		return time.Time{}, false
	}
	return at.UTC().Truncate(time.Second), true
}

// ConfirmWithin returns how long a form's confirmation links stay valid, given its setting
// ("7d", "P14D"; "" or an unreadable setting is seven days), at most a hundred years.
func ConfirmWithin(setting string) time.Duration {
	iv, err := ParseInterval(setting)
	if setting == "" || err != nil || iv.IsZero() {
		return defaultConfirmWithin
	}
	if iv.sec >= int64(100*year/time.Second) {
		return 100 * year
	}
	return time.Duration(iv.sec)*time.Second + time.Duration(iv.nsec)
}
