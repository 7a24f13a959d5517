package web

import (
	"fmt"
)

// OptInCounts is one general-contact channel's double opt-in requests: awaiting the person,
// confirmed by them, and lapsed unconfirmed.
type OptInCounts struct {
	Channel                    string // "email", "phone"
	Label                      string // "General contact by e-mail"
	Pending, Confirmed, Lapsed int
}

// Requested is every confirmation asked for.
func (c OptInCounts) Requested() int { return c.Pending + c.Confirmed + c.Lapsed }

// Rate is the share of requests the person confirmed, "–" when none was asked for.
func (c OptInCounts) Rate() string {
	if c.Requested() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(c.Confirmed)/float64(c.Requested()))
}

// OptInView is the dashboard's double opt-in section: one row per channel; shown when any
// confirmation was asked for.
type OptInView struct {
	Rows []OptInCounts
}

// Any reports whether any confirmation was asked for.
func (v OptInView) Any() bool {
	for _, r := range v.Rows {
		if r.Requested() > 0 {
			return true
		}
	}
	return false
}
