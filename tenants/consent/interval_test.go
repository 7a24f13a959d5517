package consent

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// intervalNow is the submission time of the interval tables.
var intervalNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// intervalDeadline is the deadline an interval alone gives at intervalNow, false if invalid.
func intervalDeadline(in string) (time.Time, bool) {
	got, _, ok := Deadline(nil, in, intervalNow)
	if got == nil {
		return time.Time{}, ok
	}
	return *got, ok
}

func TestParseInterval(t *testing.T) {
	const d = 24 * time.Hour
	cases := []struct {
		in   string
		want time.Duration // the deadline is intervalNow + want
		ok   bool
	}{
		// The documented examples.
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
		{"3 m", 3 * time.Minute, true},
		{"3 M", 3 * 30 * d, true},
		{"12h", 12 * time.Hour, true},
		{"2w", 14 * d, true},
		// Every other unit ignores case, as in ms.
		{"1D", d, true},
		{"30D", 30 * d, true},
		{"1H", time.Hour, true},
		{"12H", 12 * time.Hour, true},
		{"1S", time.Second, true},
		{"10S", 10 * time.Second, true},
		{"1W", 7 * d, true},
		{"1Y", 365*d + 6*time.Hour, true},
		{"2Y", 730*d + 12*time.Hour, true},
		{"1 Y", 365*d + 6*time.Hour, true},
		{"90 Days", 90 * d, true},
		{"5MS", 5 * time.Millisecond, true},
		{"5Ms", 5 * time.Millisecond, true},
		{"5mS", 5 * time.Millisecond, true},
		{"3 MSECS", 3 * time.Millisecond, true},
		{"1 Sec", time.Second, true},
		{"2 HRS", 2 * time.Hour, true},
		{"1 wEEK", 7 * d, true},
		// Long units.
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
		{"1 Mo", 30 * d, true},
		{"1 MONTH", 30 * d, true},
		{"2 Years", 730*d + 12*time.Hour, true},
		{"1 MIN", time.Minute, true},
		// Decimals, a leading point included.
		{"1.5h", 90 * time.Minute, true},
		{"1.5 h", 90 * time.Minute, true},
		{"0.5d", 12 * time.Hour, true},
		{".5h", 30 * time.Minute, true},
		{".5 days", 12 * time.Hour, true},
		{".25y", 91*d + 7*time.Hour + 30*time.Minute, true},
		{".5M", 15 * d, true},
		{"00.5h", 30 * time.Minute, true},
		{"1.5M", 45 * d, true},
		{"0.25y", 91*d + 7*time.Hour + 30*time.Minute, true},
		{"1.0001s", time.Second + 100*time.Microsecond, true},
		{"0.000000001s", 1, true},
		{"1.d", 0, false},
		{".d", 0, false},
		{".", 0, false},
		{"1..5d", 0, false},
		{"1.5.5d", 0, false},
		{"1,5d", 0, false},
		{"1e3d", 0, false},
		{"1e3s", 0, false},
		// Zero and negative intervals parse in ms but are not in the future.
		{"0d", 0, false},
		{"0 ms", 0, false},
		{"0.0000000001s", 0, false}, // below a nanosecond: truncated to zero
		{"-1d", 0, false},
		{"-30d", 0, false},
		{"-.5h", 0, false},
		{"-0d", 0, false},
		{"- 1d", 0, false},
		{"+1d", 0, false},
		{"+30d", 0, false},
		{"007d", 7 * d, true},
		{"010d", 10 * d, true},
		// Spaces: any number of them between number and unit; whitespace around is trimmed.
		{"  30d  ", 30 * d, true},
		{"\t30d\n", 30 * d, true},
		{"1  d", d, true},
		{"30   days", 30 * d, true},
		{"1" + strings.Repeat(" ", 98) + "d", d, true}, // 100 characters, ms's limit
		{"1" + strings.Repeat(" ", 99) + "d", 0, false},
		{strings.Repeat("0", 98) + "1d", d, true},
		{strings.Repeat("0", 99) + "1d", 0, false},
		{"1\td", 0, false},
		{"1 \u00a0d", 0, false},
		{"3 0d", 0, false},
		{"30d x", 0, false},
		{"1 d s", 0, false},
		// Garbage.
		{"", 0, false},
		{"   ", 0, false},
		{"30", 0, false},
		{".5", 0, false},
		{"1 ", 0, false},
		{"d", 0, false},
		{"1dd", 0, false},
		{"30dd", 0, false},
		{"1 fortnight", 0, false},
		{"30 dayz", 0, false},
		{"thirty days", 0, false},
		{"\u0663d", 0, false}, // Arabic-Indic three
		{"\uff13d", 0, false}, // full-width three
		{"30ſec", 0, false},
		{"30 ſec", 0, false},
		{"1 \u212aelvin", 0, false},
		{"30d30d", 0, false},
		{"NaN d", 0, false},
		{"Infinity", 0, false},
		// Past the end of year 9999.
		{"99999999999999999999999d", 0, false},
		{"9223372036854775807ms", 0, false},
		{strings.Repeat("1", 99) + "d", 0, false},
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
		{"PT0.5H", 30 * time.Minute, true},
		{"P0,5D", 12 * time.Hour, true},
		{"P1.5Y", 547*d + 21*time.Hour, true},
		{"P0D", 0, false},
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
		{"P.5D", 0, false},
		{"P1", 0, false},
		{"PD", 0, false},
		{"P-1D", 0, false},
		{"-P1D", 0, false},
		{"P1 D", 0, false},
		{"P 1D", 0, false},
		{"P1DT1H1M1S1", 0, false},
		{"P1TD", 0, false},
		{"P1DTT1H", 0, false},
		{"P8000Y", 0, false},
		{"PT9223372036854775807S", 0, false},
	}
	for _, c := range cases {
		got, ok := intervalDeadline(c.in)
		if ok != c.ok || ok && !got.Equal(intervalNow.Add(c.want)) {
			t.Errorf("deadline for %q = %v, %v; want now+%v, ok=%v", c.in, got, ok, c.want, c.ok)
			continue
		}
		// Where ms reads the string and docs/API.md §3.5 does not redefine it, the deadline is ms's.
		ms, unit, msOK := msParse(strings.TrimSpace(c.in))
		if c.ok && msOK && unit != "" && unit != "M" && !msAgrees(got, intervalNow, ms) {
			t.Errorf("deadline for %q = %v, ms reads %v ms", c.in, got, ms)
		}
	}
}

func TestParseIntervalBeyondDuration(t *testing.T) {
	// Past time.Duration's 292 years the deadline is still now + the interval, to the nanosecond.
	cases := []struct {
		in   string
		days int
		rest time.Duration
	}{
		{"300y", 109575, 0},
		{"365yr", 133316, 6 * time.Hour},
		{"1000 y", 365250, 0},
		{"1000W", 7000, 0},
		{"1000 YEARS", 365250, 0},
		{"200000 weeks", 1400000, 0},
		{"7000M", 210000, 0},
		{"P400Y", 146100, 0},
		{"7973y", 2912138, 6 * time.Hour},
		{"292.5y", 106835, 15 * time.Hour},
		{"106752d", 106752, 0},
		{"9223372037s", 106751, 23*time.Hour + 47*time.Minute + 17*time.Second},
	}
	for _, c := range cases {
		want := intervalNow.AddDate(0, 0, c.days).Add(c.rest)
		got, ok := intervalDeadline(c.in)
		if !ok || !got.Equal(want) {
			t.Errorf("deadline for %q = %v, %v; want %v", c.in, got, ok, want)
		}
		if ms, unit, msOK := msParse(c.in); msOK && unit != "M" && !msAgrees(got, intervalNow, ms) {
			t.Errorf("deadline for %q = %v, ms reads %v ms", c.in, got, ms)
		}
	}
	// 7974 years from March 2026 is in 10000.
	if got, ok := intervalDeadline("7974y"); ok {
		t.Errorf("7974y accepted: %v", got)
	}
}

func TestParseIntervalMatchesMS(t *testing.T) {
	// Every ms unit in three letter cases, with each number form and spacing ms reads.
	words := []string{"ms", "milliseconds", "millisecond", "msecs", "msec", "s", "seconds", "second", "secs", "sec",
		"m", "minutes", "minute", "mins", "min", "h", "hours", "hour", "hrs", "hr", "d", "days", "day",
		"w", "weeks", "week", "y", "years", "year", "yrs", "yr"}
	for _, w := range words {
		for _, unit := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			for _, num := range []string{"1", "2.5", ".5", "007", "1000"} {
				for _, space := range []string{"", " ", "   "} {
					in := num + space + unit
					ms, _, msOK := msParse(in)
					if !msOK {
						t.Fatalf("ms does not read %q", in)
					}
					got, ok := intervalDeadline(in)
					if unit == "M" {
						ms = msParseMonths(t, num)
					}
					if !ok || !msAgrees(got, intervalNow, ms) {
						t.Errorf("deadline for %q = %v, %v; ms reads %v ms", in, got, ok, ms)
					}
				}
			}
		}
	}
}

// msParseMonths is the length of num 30-day months in milliseconds: M is a month, not ms's minute.
func msParseMonths(t *testing.T, num string) float64 {
	t.Helper()
	days, _, ok := msParse(num + "d")
	if !ok {
		t.Fatalf("ms does not read %q", num+"d")
	}
	return 30 * days
}

func TestParseIntervalErrors(t *testing.T) {
	for _, in := range []string{"", "1dd", "-1d", "+1d", "1 fortnight", "\u0663d", "P1H", strings.Repeat("9", 99) + "y"} {
		iv, err := ParseInterval(in)
		if !errors.Is(err, errInterval) || iv != (Interval{}) {
			t.Errorf("ParseInterval(%q) = %+v, %v; want a zero interval and errInterval", in, iv, err)
		}
	}
	// A zero interval parses: it is Deadline that refuses a deadline that is not in the future.
	for _, in := range []string{"0d", "0 ms", "P0D", "0.0000000001s"} {
		if iv, err := ParseInterval(in); err != nil || iv != (Interval{}) {
			t.Errorf("ParseInterval(%q) = %+v, %v; want zero", in, iv, err)
		}
	}
}

func TestParseIntervalUnitLengths(t *testing.T) {
	// A month is 30 days and a year 365.25 days.
	cases := []struct {
		in   string
		want Interval
	}{
		{"1M", Interval{sec: 30 * 86400}},
		{"1m", Interval{sec: 60}},
		{"1y", Interval{sec: 365*86400 + 6*3600}},
		{"4y", Interval{sec: 1461 * 86400}},
		{"1.0000000001s", Interval{sec: 1}},
		{"9223372036.854775807s", Interval{sec: 9223372036, nsec: 854775807}},
		{"9223372036854775807s", Interval{sec: 9223372036854775807}},
	}
	for _, c := range cases {
		if got, err := ParseInterval(c.in); err != nil || got != c.want {
			t.Errorf("ParseInterval(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if got, err := ParseInterval("9223372036854775808s"); err == nil {
		t.Errorf("2^63 seconds accepted: %+v", got)
	}
}

func TestIntervalFromEndOfYear9999(t *testing.T) {
	last := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	cases := []struct {
		now  time.Time
		iv   Interval
		want time.Time
		ok   bool
	}{
		{last, Interval{nsec: 999999999}, last.Add(999999999), true},
		{last, Interval{sec: 1}, time.Time{}, false},
		{last.Add(500 * time.Millisecond), Interval{nsec: 500000000}, time.Time{}, false},
		{last.Add(500 * time.Millisecond), Interval{nsec: 499999999}, last.Add(999999999), true},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), Interval{sec: 86399}, last, true},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), Interval{sec: 86400}, time.Time{}, false},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Interval{sec: 1<<63 - 1}, time.Time{}, false},
		{last.Add(time.Second), Interval{}, time.Time{}, false},
		{intervalNow.In(time.FixedZone("CET", 3600)), Interval{sec: 60}, intervalNow.Add(time.Minute), true},
	}
	for _, c := range cases {
		got, ok := c.iv.From(c.now)
		if ok != c.ok || !got.Equal(c.want) || ok && got.Location() != time.UTC {
			t.Errorf("%+v.From(%v) = %v, %v; want %v, %v", c.iv, c.now, got, ok, c.want, c.ok)
		}
	}
}

// TestRemindAt: the reminder is due half-way through the confirmation period by default, at
// the form's interval when it sets one, and not at all for "none", an unreadable setting, or a
// time at or after the link lapses.
func TestRemindAt(t *testing.T) {
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	by := created.Add(7 * 24 * time.Hour)
	for _, c := range []struct {
		setting string
		want    time.Time
		ok      bool
	}{
		{"", created.Add(84 * time.Hour), true},
		{"3d", created.Add(72 * time.Hour), true},
		{"P1D", created.Add(24 * time.Hour), true},
		{"none", time.Time{}, false},
		{"soon", time.Time{}, false},
		{"7d", time.Time{}, false},
		{"8d", time.Time{}, false},
	} {
		got, ok := RemindAt(c.setting, created, by)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("RemindAt(%q) = %v %v, want %v %v", c.setting, got, ok, c.want, c.ok)
		}
	}
}
