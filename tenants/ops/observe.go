package ops

import (
	"errors"

	"github.com/consentforms/consentforms/tenants"
)

// Observe is the service's observer (its metrics): Observer when set, else one that
// observes nothing. The API and the admin UI count their refusals through it too.
func (s *Service) Observe() tenants.Observer {
	if s == nil || s.Observer == nil {
		return tenants.NopObserver{}
	}
	return s.Observer
}

// ObserveError counts err as a store error of its operation when a store failed.
func (s *Service) ObserveError(err error) {
	var se *tenants.StoreError
	if errors.As(err, &se) {
		s.Observe().StoreError(se.Op)
	}
}
