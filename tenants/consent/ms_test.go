package consent

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// msPattern is the regular expression of parse in the npm package ms 2.1.3.
var msPattern = regexp.MustCompile(`(?i)^(-?(?:\d+)?\.?\d+) *(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)?$`)

// msPerUnit are ms 2.1.3's unit lengths in milliseconds, by the first letters of the unit.
var msPerUnit = []struct {
	prefix string
	ms     float64
}{
	{"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}, {"d", 86400e3}, {"w", 7 * 86400e3}, {"y", 365.25 * 86400e3},
}

// msParse is ms 2.1.3's parse: the milliseconds s stands for, the unit as written ("" when
// none) and false where ms reads nothing. Only ASCII input is compared: Go's (?i) folds "ſ"
// to "s", JavaScript's /i does not.
func msParse(s string) (ms float64, unit string, ok bool) {
	if len(s) > 100 {
		return 0, "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return 0, "", false
		}
	}
	m := msPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, "", false
	}
	lower := strings.ToLower(m[2])
	if strings.HasPrefix(lower, "msec") || strings.HasPrefix(lower, "milli") {
		lower = "ms"
	}
	for _, u := range msPerUnit {
		if strings.HasPrefix(lower, u.prefix) {
			return n * u.ms, m[2], true
		}
	}
	return n, "", true // no unit: milliseconds
}

// msAgrees reports whether the deadline got lies ms milliseconds after now, up to float rounding.
func msAgrees(got, now time.Time, ms float64) bool {
	gotMs := float64(got.Unix()-now.Unix())*1e3 + float64(got.Nanosecond()-now.Nanosecond())/1e6
	return math.Abs(gotMs-ms) <= 1e-9*math.Abs(ms)+1e-3
}

func TestMSParseReference(t *testing.T) {
	// The reference itself, against values ms 2.1.3 returns.
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"2 days", 172800000, true},
		{"1d", 86400000, true},
		{"10h", 36000000, true},
		{"2.5 hrs", 9000000, true},
		{"2h", 7200000, true},
		{"1m", 60000, true},
		{"5s", 5000, true},
		{"1y", 31557600000, true},
		{"100", 100, true},
		{"-3 days", -259200000, true},
		{"-1h", -3600000, true},
		{"-200", -200, true},
		{".5ms", 0.5, true},
		{"1   MSECS", 1, true},
		{"53 milliseconds", 53, true},
		{"1 Year", 31557600000, true},
		{"☃", 0, false},
		{"10-.5", 0, false},
		{"foo", 0, false},
		{"+1d", 0, false},
		{"1.d", 0, false},
	}
	for _, c := range cases {
		got, _, ok := msParse(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("msParse(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
