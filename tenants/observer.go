package tenants

import "time"

// Observer is told what the service does, for its metrics (docs/OPERATIONS.md#metrics).
// Package cmd implements it with Prometheus; the domain and the stores only call it. Every
// argument is a name fixed in the code or a number, never a value taken from a request.
type Observer interface {
	// Batch reports one write of the batching writer: how many jobs it held and how long
	// writing them took, commit included.
	Batch(size int, took time.Duration)
	// StoreError reports a store operation that failed (StoreError.Op).
	StoreError(op string)
	// Count adds n to an event's counter.
	Count(e Event, n int)
}

// Event names a counted event.
type Event string

// The counted events.
const (
	EventErasure        Event = "erasure"         // a person erased (one call)
	EventErasedRecord   Event = "erased_record"   // a record anonymised
	EventUnsubscribe    Event = "unsubscribe"     // a person unsubscribed (one call)
	EventConsentExpired Event = "consent_expired" // a consent recorded as expired
	EventRateLimited    Event = "rate_limited"    // an API request refused by its key's rate limit
	EventLoginThrottled Event = "login_throttled" // an admin sign-in refused by the failure throttle
	// EventUndecodableRecord: a stored record whose body could not be decoded, read without
	// its custom fields (docs/OPERATIONS.md#limits).
	EventUndecodableRecord Event = "undecodable_record"
	// A tenant's mail through its mail server: accepted, to be tried again, refused for good.
	EventMailSent    Event = "mail_sent"
	EventMailRetried Event = "mail_retried"
	EventMailFailed  Event = "mail_failed"
)

// NopObserver observes nothing.
type NopObserver struct{}

// Batch implements Observer.
func (NopObserver) Batch(int, time.Duration) {}

// StoreError implements Observer.
func (NopObserver) StoreError(string) {}

// Count implements Observer.
func (NopObserver) Count(Event, int) {}

// StoreError is a store operation's failure other than ErrNotFound and ErrConflict: the
// repositories wrap driver errors in it, naming the operation. Op is a fixed name from the
// code; neither it nor Err quotes a stored value.
type StoreError struct {
	Op  string
	Err error
}

func (e *StoreError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the driver's error (ErrUnavailable among them).
func (e *StoreError) Unwrap() error { return e.Err }
