package tenants

import "context"

// MatchKeyRepo replaces a record's match keys: `consentforms rehash` re-derives them with a
// new HMAC key from the identifiers the record still holds, after the old key was lost.
type MatchKeyRepo interface {
	// SetMatchKeys replaces the match keys of the tenant's record of kind with publicID, in
	// the record and in the index people are found through; ErrNotFound for no such record.
	SetMatchKeys(ctx context.Context, tenantID string, kind Kind, publicID string, keys []string) error
}
