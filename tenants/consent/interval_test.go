package consent

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseInterval(t *testing.T) {
	const d = 24 * time.Hour
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		// SPEC.md's shown values.
		{"30d", 30 * d, true},
		{"90d", 90 * d, true},
		{"180d", 180 * d, true},
		{"3M", 90 * d, true},
		{"6M", 180 * d, true},
		{"1y", 365*d + 6*time.Hour, true},
		{"2y", 730*d + 12*time.Hour, true},
		{"5y", 1826*d + 6*time.Hour, true},
		// Every short unit; M and m differ.
		{"250ms", 250 * time.Millisecond, true},
		{"45s", 45 * time.Second, true},
		{"3m", 3 * time.Minute, true},
		{"3M", 3 * 30 * d, true},
		{"12h", 12 * time.Hour, true},
		{"2w", 14 * d, true},
		// Short units are case-sensitive.
		{"1D", 0, false},
		{"1H", 0, false},
		{"1S", 0, false},
		{"1W", 0, false},
		{"1Y", 0, false},
		{"1MS", 0, false},
		{"1Ms", 0, false},
		// Long units, case-insensitive.
		{"5 milliseconds", 5 * time.Millisecond, true},
		{"1 millisecond", time.Millisecond, true},
		{"5msecs", 5 * time.Millisecond, true},
		{"5 msec", 5 * time.Millisecond, true},
		{"10 seconds", 10 * time.Second, true},
		{"1 second", time.Second, true},
		{"10 secs", 10 * time.Second, true},
		{"10sec", 10 * time.Second, true},
		{"2 minutes", 2 * time.Minute, true},
		{"1 minute", time.Minute, true},
		{"2 mins", 2 * time.Minute, true},
		{"2min", 2 * time.Minute, true},
		{"2 hours", 2 * time.Hour, true},
		{"1 hour", time.Hour, true},
		{"2 hrs", 2 * time.Hour, true},
		{"2hr", 2 * time.Hour, true},
		{"30 days", 30 * d, true},
		{"1 day", d, true},
		{"2 weeks", 14 * d, true},
		{"1 week", 7 * d, true},
		{"6 months", 180 * d, true},
		{"1 month", 30 * d, true},
		{"2mo", 60 * d, true},
		{"2 years", 730*d + 12*time.Hour, true},
		{"1 year", 365*d + 6*time.Hour, true},
		{"2 yrs", 730*d + 12*time.Hour, true},
		{"1yr", 365*d + 6*time.Hour, true},
		{"30 DAYS", 30 * d, true},
		{"6 Months", 180 * d, true},
		{"1 MO", 30 * d, true},
		{"2 Years", 730*d + 12*time.Hour, true},
		{"1 MIN", time.Minute, true},
		// Decimals.
		{"1.5h", 90 * time.Minute, true},
		{"1.5 h", 90 * time.Minute, true},
		{"0.5d", 12 * time.Hour, true},
		{"1.5M", 45 * d, true},
		{"0.25y", 91*d + 7*time.Hour + 30*time.Minute, true},
		{"1.0001s", time.Second + 100*time.Microsecond, true},
		{"0.0000000001s", 0, true}, // below a nanosecond: truncated
		{".5d", 0, false},
		{"1.d", 0, false},
		{"1..5d", 0, false},
		{"1,5d", 0, false},
		{"1e3s", 0, false},
		// Zero parses; Deadline rejects it as not in the future.
		{"0d", 0, true},
		{"0 ms", 0, true},
		{"007d", 7 * d, true},
		// Spaces.
		{"  30d  ", 30 * d, true},
		{"\t30d\n", 30 * d, true},
		{"30  d", 0, false},
		{"3 0d", 0, false},
		{"30d x", 0, false},
		// Garbage.
		{"", 0, false},
		{"   ", 0, false},
		{"30", 0, false},
		{"d", 0, false},
		{"-30d", 0, false},
		{"+30d", 0, false},
		{"30 dayz", 0, false},
		{"30dd", 0, false},
		{"thirty days", 0, false},
		{"30ſec", 0, false},
		{"30 ſec", 0, false},
		{"1 \u212aelvin", 0, false},
		{"30d30d", 0, false},
		{"NaN d", 0, false},
		{"Infinity", 0, false},
		{strings.Repeat("1", 65) + "d", 0, false},
		// Overflow of time.Duration (about 292 years).
		{"292y", 292 * (365*d + 6*time.Hour), true},
		{"293y", 0, false},
		{"9223372036854775807ms", 0, false},
		{"9223372036854775807ns", 0, false},
		{"99999999999999999999999d", 0, false},
		{"106751d", 106751 * d, true},
		{"106752d", 0, false},
		// ISO 8601 durations.
		{"P30D", 30 * d, true},
		{"P6M", 180 * d, true},
		{"P1Y", 365*d + 6*time.Hour, true},
		{"PT12H", 12 * time.Hour, true},
		{"P1W", 7 * d, true},
		{"PT30M", 30 * time.Minute, true},
		{"PT45S", 45 * time.Second, true},
		{"P1Y2M3DT4H5M6S", 365*d + 6*time.Hour + 60*d + 3*d + 4*time.Hour + 5*time.Minute + 6*time.Second, true},
		{"P1M1W", 37 * d, true},
		{"p30d", 30 * d, true},
		{"pt12h", 12 * time.Hour, true},
		{"P1dT1h", 25 * time.Hour, true},
		{" P30D ", 30 * d, true},
		{"P0D", 0, true},
		{"PT0.5H", 30 * time.Minute, true},
		{"P0,5D", 12 * time.Hour, true},
		{"P1.5Y", 547*d + 21*time.Hour, true},
		{"P", 0, false},
		{"PT", 0, false},
		{"P1DT", 0, false},
		{"P1H", 0, false},
		{"PT1D", 0, false},
		{"PT1Y", 0, false},
		{"P1M1Y", 0, false},
		{"P1D1D", 0, false},
		{"PT1S1M", 0, false},
		{"P1.5DT1H", 0, false},
		{"PT1.5H1M", 0, false},
		{"P1", 0, false},
		{"PD", 0, false},
		{"P-1D", 0, false},
		{"-P1D", 0, false},
		{"P1 D", 0, false},
		{"P 1D", 0, false},
		{"P1DT1H1M1S1", 0, false},
		{"P1TD", 0, false},
		{"P1DTT1H", 0, false},
		{"P300Y", 0, false},
		{"PT9223372036854775807S", 0, false},
	}
	for _, c := range cases {
		got, err := ParseInterval(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseIntervalUnitLengths(t *testing.T) {
	// CONTRACT.md §3: a month is 30 days and a year 365.25 days.
	if got, _ := ParseInterval("1M"); got != 30*24*time.Hour {
		t.Errorf("1M = %v", got)
	}
	if got, _ := ParseInterval("4y"); got != 1461*24*time.Hour {
		t.Errorf("4y = %v, want 1461 days", got)
	}
	if got, _ := ParseInterval("1m"); got != time.Minute {
		t.Errorf("1m = %v", got)
	}
	if got, _ := ParseInterval("1y"); got != time.Duration(365.25*24*float64(time.Hour)) {
		t.Errorf("1y = %v", got)
	}
	max, err := ParseInterval("9223372036854775807 ms")
	if err == nil {
		t.Errorf("overflow accepted: %v", max)
	}
	if got, err := ParseInterval("9223372036.854775807s"); err != nil || got != math.MaxInt64 {
		t.Errorf("largest duration = %v, %v", got, err)
	}
}
