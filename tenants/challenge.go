package tenants

import (
	"context"
	"time"
)

// ChallengeRepo remembers the spam challenges whose solutions were accepted, until they
// expire, so that each solution is accepted once, on every instance (docs/API.md §14).
type ChallengeRepo interface {
	// Spend records the tenant's challenge as spent until expiresAt: ErrConflict when it was
	// spent already. It drops the tenant's spent challenges that expired before now.
	Spend(ctx context.Context, tenantID, challenge string, expiresAt, now time.Time) error
}
