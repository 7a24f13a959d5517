package ops

import (
	"errors"

	"github.com/consentforms/consentforms/tenants"
)

// Observe is the service's observer (its metrics): Observer when set, else one that
// observes nothing. The API and the admin UI count their refusals through it too.
func (s *Core) Observe() tenants.Observer {
	if s == nil || s.Observer == nil {
		return tenants.NopObserver{}
	}
	return s.Observer
}

// ObserveError counts err as a store error of its operation when a store failed.
func (s *Core) ObserveError(err error) { CountStoreError(s.Observe(), err) }

// CountStoreError counts err in o as a store error of its operation when a store failed.
func CountStoreError(o tenants.Observer, err error) {
	var se *tenants.StoreError
	if errors.As(err, &se) {
		o.StoreError(se.Op)
	}
}
