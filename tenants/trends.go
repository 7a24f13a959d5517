package tenants

import (
	"context"
	"time"
)

// TrendRepo answers the dashboard's trends from indexes alone: a tenant with many records
// must not have its records read to draw two charts.
type TrendRepo interface {
	// CreatedPerDay counts the tenant's records of kind created in [from, to), per UTC day
	// (keyed by the day's midnight, UTC).
	CreatedPerDay(ctx context.Context, tenantID string, kind Kind, from, to time.Time) (map[time.Time]int64, error)
	// ExpiringPerDay counts the tenant's live records, of every kind, whose consent (one of
	// the general-contact consents, which the re-permission list serves) is stored as granted
	// with a deadline in (from, to], per UTC day of the deadline.
	ExpiringPerDay(ctx context.Context, tenantID string, consent ConsentName, from, to time.Time) (map[time.Time]int64, error)
}

// Day is the UTC midnight that begins t's day, as TrendRepo keys its counts.
func Day(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
