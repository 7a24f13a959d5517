package consent

import (
	"testing"
	"time"
)

func TestParseRetention(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		retention, from, basis string
		before                 time.Time
	}{
		{"30s", "", "created", now.Add(-30 * time.Second)},
		{"90d", "consents-lapsed", "consents-lapsed", now.Add(-90 * 24 * time.Hour)},
		{"P1Y", "created", "created", now.Add(-(365*24 + 6) * time.Hour)},
		{"1.5h", "", "created", now.Add(-90 * time.Minute)},
	} {
		iv, basis, err := ParseRetention(c.retention, c.from)
		if err != nil || basis != c.basis || !iv.Before(now).Equal(c.before) {
			t.Errorf("%q from %q: before %v, basis %q, %v; want %v, %q", c.retention, c.from, iv.Before(now), basis, err, c.before, c.basis)
		}
	}
	for _, c := range [][2]string{{"soon", ""}, {"0s", ""}, {"-5d", ""}, {"2y", "birth"}} {
		if _, _, err := ParseRetention(c[0], c[1]); err == nil {
			t.Errorf("%q from %q accepted", c[0], c[1])
		}
	}
	if _, basis, err := ParseRetention("", ""); err != nil || basis != "" {
		t.Errorf("no retention: %q, %v", basis, err)
	}
	iv, _ := ParseInterval("9000y")
	if got := iv.Before(now); !got.IsZero() && got.Year() > 1 {
		t.Errorf("9000y before now: %v, want the earliest time", got)
	}
}
