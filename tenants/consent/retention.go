package consent

import (
	"fmt"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Before returns the instant iv before t, in UTC; the zero time (year 1) when that lies
// earlier, so that nothing is ever before it.
func (iv Interval) Before(t time.Time) time.Time {
	// Seconds from year 1 to the Unix epoch.
	const year1 = 62135596800
	if iv.sec > t.Unix()+year1-1 {
		return time.Time{}
	}
	return time.Unix(t.Unix()-iv.sec, int64(t.Nanosecond())-iv.nsec).UTC()
}

// ParseRetention checks a retention setting: a deadline interval ("" = none) and what it
// counts from ("" = created). It returns the interval and the normalised basis.
func ParseRetention(retention, from string) (Interval, string, error) {
	if from != "" && !slices.Contains(tenants.RetentionFroms(), from) {
		return Interval{}, "", fmt.Errorf("retention must count from created or consents-lapsed")
	}
	if retention == "" {
		return Interval{}, "", nil
	}
	iv, err := ParseInterval(retention)
	if err != nil {
		return Interval{}, "", fmt.Errorf("retention must be an interval such as 90d, 2y or P2Y")
	}
	if iv.sec == 0 && iv.nsec == 0 {
		return Interval{}, "", fmt.Errorf("retention must be longer than zero")
	}
	return iv, tenants.RetentionBasis(from), nil
}
