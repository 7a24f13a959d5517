package tenants

import (
	"context"
	"time"
)

// SpentTokenRepo remembers the single-use tokens that were used (confirmation links,
// docs/API.md §13), by a hash of the token, so that every instance refuses a second use.
type SpentTokenRepo interface {
	// Spend records the token id of the tenant as spent at at, kept at least until expires;
	// first is false when it was spent already (also when two instances race). The tenant's
	// tokens that expired before at are forgotten: their links are refused as lapsed anyway.
	Spend(ctx context.Context, tenantID, id string, at, expires time.Time) (first bool, err error)
	// Spent reports whether the tenant's token id was spent.
	Spent(ctx context.Context, tenantID, id string) (bool, error)
}
