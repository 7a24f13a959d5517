package consent

import (
	"testing"
	"time"
)

func TestParseDeadlineDate(t *testing.T) {
	utc := func(y int, m time.Month, d, hh, mm, ss, ns int) time.Time {
		return time.Date(y, m, d, hh, mm, ss, ns, time.UTC)
	}
	cases := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2027-01-31", utc(2027, 1, 31, 23, 59, 59, 0), true},
		{" 2027-01-31 ", utc(2027, 1, 31, 23, 59, 59, 0), true},
		{"2028-02-29", utc(2028, 2, 29, 23, 59, 59, 0), true},
		{"2000-02-29", utc(2000, 2, 29, 23, 59, 59, 0), true},
		{"2027-01-31T10:00:00Z", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31T10:00:00z", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31t10:00:00Z", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31T10:00:00", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31 10:00:00", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31T10:00", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31T10:00Z", utc(2027, 1, 31, 10, 0, 0, 0), true},
		{"2027-01-31T10:00:00+02:00", utc(2027, 1, 31, 8, 0, 0, 0), true},
		{"2027-01-31T10:00:00-05:30", utc(2027, 1, 31, 15, 30, 0, 0), true},
		{"2027-01-31T10:00:00+0200", utc(2027, 1, 31, 8, 0, 0, 0), true},
		{"2027-01-31T10:00:00+02", utc(2027, 1, 31, 8, 0, 0, 0), true},
		{"2027-01-31T10:00+02:00", utc(2027, 1, 31, 8, 0, 0, 0), true},
		{"2027-01-31T00:30:00+01:00", utc(2027, 1, 30, 23, 30, 0, 0), true},
		{"2027-01-31T10:00:00.5Z", utc(2027, 1, 31, 10, 0, 0, 500000000), true},
		{"2027-01-31T10:00:00,25Z", utc(2027, 1, 31, 10, 0, 0, 250000000), true},
		{"2027-01-31T10:00:00.123456789Z", utc(2027, 1, 31, 10, 0, 0, 123456789), true},
		{"2027-01-31T10:00:00.1234567891234", utc(2027, 1, 31, 10, 0, 0, 123456789), true},
		{"2027-01-31T23:59:59.999+00:00", utc(2027, 1, 31, 23, 59, 59, 999000000), true},
		{"9999-12-31", utc(9999, 12, 31, 23, 59, 59, 0), true},
		{"9999-12-31T23:00:00+01:00", utc(9999, 12, 31, 22, 0, 0, 0), true},
		{"9999-12-31T23:00:00-01:00", time.Time{}, false}, // year 10000 in UTC
		{"0000-01-01T00:30:00+01:00", time.Time{}, false}, // year -1 in UTC
		{"", time.Time{}, false},
		{"   ", time.Time{}, false},
		{"tomorrow", time.Time{}, false},
		{"2027-1-31", time.Time{}, false},
		{"27-01-31", time.Time{}, false},
		{"20270131", time.Time{}, false},
		{"2027/01/31", time.Time{}, false},
		{"31.01.2027", time.Time{}, false},
		{"2027-00-10", time.Time{}, false},
		{"2027-13-10", time.Time{}, false},
		{"2027-01-00", time.Time{}, false},
		{"2027-01-32", time.Time{}, false},
		{"2027-02-29", time.Time{}, false},
		{"1900-02-29", time.Time{}, false},
		{"2027-04-31", time.Time{}, false},
		{"2027-01-31T", time.Time{}, false},
		{"2027-01-31T10", time.Time{}, false},
		{"2027-01-31T10:0", time.Time{}, false},
		{"2027-01-31T24:00:00", time.Time{}, false},
		{"2027-01-31T10:60:00", time.Time{}, false},
		{"2027-01-31T10:00:60", time.Time{}, false},
		{"2027-01-31T10:00:0", time.Time{}, false},
		{"2027-01-31T10:00:00.", time.Time{}, false},
		{"2027-01-31T10:00.5", time.Time{}, false},
		{"2027-01-31X10:00:00", time.Time{}, false},
		{"2027-01-31  10:00:00", time.Time{}, false},
		{"2027-01-31T10:00:00+24:00", time.Time{}, false},
		{"2027-01-31T10:00:00+02:60", time.Time{}, false},
		{"2027-01-31T10:00:00+2", time.Time{}, false},
		{"2027-01-31T10:00:00+02:0", time.Time{}, false},
		{"2027-01-31T10:00:00 +02:00", time.Time{}, false},
		{"2027-01-31T10:00:00ZZ", time.Time{}, false},
		{"2027-01-31T10:00:00UTC", time.Time{}, false},
		{"2027-01-31Z", time.Time{}, false},
		{"-2027-01-31", time.Time{}, false},
		{"+2027-01-31", time.Time{}, false},
		{"12027-01-31", time.Time{}, false},
		{"２０２７-01-31", time.Time{}, false},
		{"2027-01-31T10:00:00.000000000000000000000000000000000000000000000000000Z", time.Time{}, false},
	}
	for _, c := range cases {
		got, err := ParseDeadlineDate(c.in)
		if (err == nil) != c.ok || !got.Equal(c.want) {
			t.Errorf("ParseDeadlineDate(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
			continue
		}
		if c.ok && got.Location() != time.UTC {
			t.Errorf("ParseDeadlineDate(%q) not in UTC: %v", c.in, got.Location())
		}
	}
}

func TestDeadline(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s string) *time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &tm
	}
	cases := []struct {
		name           string
		date, interval any
		want           *time.Time
		present, ok    bool
	}{
		{"both absent", nil, nil, nil, false, true},
		{"date", "2027-01-31", nil, at("2027-01-31T23:59:59Z"), true, true},
		{"interval", nil, "30d", at("2026-03-31T12:00:00Z"), true, true},
		{"iso interval", nil, "P1Y", at("2027-03-01T18:00:00Z"), true, true},
		{"both, date earlier", "2026-03-10", "30d", at("2026-03-10T23:59:59Z"), true, true},
		{"both, interval earlier", "2027-01-31", "1d", at("2026-03-02T12:00:00Z"), true, true},
		{"date today, later", "2026-03-01", nil, at("2026-03-01T23:59:59Z"), true, true},
		{"date one ns ahead", "2026-03-01T12:00:00.000000001Z", nil, at("2026-03-01T12:00:00.000000001Z"), true, true},
		{"date now", "2026-03-01T12:00:00Z", nil, nil, true, false},
		{"date past", "2020-01-01", nil, nil, true, false},
		{"date yesterday", "2026-02-28", nil, nil, true, false},
		{"interval zero", nil, "0d", nil, true, false},
		{"interval one ns", nil, "0.000000001s", at("2026-03-01T12:00:00.000000001Z"), true, true},
		{"interval below ns", nil, "0.0000000001s", nil, true, false},
		{"interval negative", nil, "-1d", nil, true, false},
		{"interval beyond time.Duration", nil, "300y", at("2326-03-04T12:00:00Z"), true, true},
		{"interval upper case", nil, "30D", at("2026-03-31T12:00:00Z"), true, true},
		{"interval leading point", nil, ".5h", at("2026-03-01T12:30:00Z"), true, true},
		{"interval past year 9999", nil, "8000y", nil, true, false},
		{"date empty", "", nil, nil, true, false},
		{"interval empty", nil, "", nil, true, false},
		{"date number", 20270131.0, nil, nil, true, false},
		{"interval number", nil, 30.0, nil, true, false},
		{"date bool", true, nil, nil, true, false},
		{"interval array", nil, []any{"30d"}, nil, true, false},
		{"interval object", nil, map[string]any{"d": 30.0}, nil, true, false},
		{"date garbage", "soon", nil, nil, true, false},
		{"good date bad interval", "2027-01-31", "soon", nil, true, false},
		{"bad date good interval", "soon", "30d", nil, true, false},
		{"past date good interval", "2020-01-01", "30d", nil, true, false},
		{"good date zero interval", "2027-01-31", "0s", nil, true, false},
		{"date as interval", nil, "2027-01-31", nil, true, false},
		{"interval as date", "30d", nil, nil, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, present, ok := Deadline(c.date, c.interval, now)
			if present != c.present || ok != c.ok {
				t.Fatalf("present, ok = %v, %v; want %v, %v", present, ok, c.present, c.ok)
			}
			switch {
			case (got == nil) != (c.want == nil):
				t.Fatalf("deadline = %v, want %v", got, c.want)
			case got != nil && !got.Equal(*c.want):
				t.Fatalf("deadline = %v, want %v", got, c.want)
			case got != nil && got.Location() != time.UTC:
				t.Fatalf("deadline not UTC: %v", got)
			}
		})
	}
}

func TestDeadlineNearYear9999(t *testing.T) {
	now := time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, _, ok := Deadline(nil, "60d", now); ok {
		t.Error("a deadline beyond year 9999 was accepted")
	}
	if _, _, ok := Deadline(nil, "10d", now); !ok {
		t.Error("a deadline within year 9999 was rejected")
	}
}

func TestDeadlineNonUTCNow(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, loc)
	got, _, ok := Deadline(nil, "1h", now)
	if !ok || got.Location() != time.UTC || !got.Equal(now.Add(time.Hour)) {
		t.Errorf("Deadline = %v, %v", got, ok)
	}
}
