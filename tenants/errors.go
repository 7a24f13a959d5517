// Package tenants is the domain root: tenants, API keys and scopes, forms, staff users,
// the audit log and the records that hold a person's data. It imports nothing internal.
package tenants

import (
	"errors"
	"time"
)

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

// RetryError is an unavailable error that knows when a repeat can succeed (a claim's lease
// ending): the API's 503 says so in Retry-After.
type RetryError struct {
	// Err wraps ErrUnavailable.
	Err error
	// After is how long from now a repeat should wait.
	After time.Duration
}

func (e *RetryError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *RetryError) Unwrap() error { return e.Err }
