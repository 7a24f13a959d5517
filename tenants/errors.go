// Package tenants is the domain root: tenants, API keys and scopes, forms, staff users,
// the audit log and the records that hold a person's data. It imports nothing internal.
package tenants

import "errors"

// The errors repositories translate driver errors into; any other failure leaves a store as
// a *StoreError naming its operation.
var (
	// ErrNotFound means no document matched.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a document with the same key exists.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable means the database could not be reached; callers answer 503.
	ErrUnavailable = errors.New("database unavailable")
)
