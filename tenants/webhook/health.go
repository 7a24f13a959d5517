package webhook

import (
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Health is an endpoint's delivery health as its recent deliveries show it: staff must not
// see a receiver that refuses everything as "active".
type Health struct {
	// LastSuccess is when a delivery last succeeded; nil for never (among those read).
	LastSuccess *time.Time
	// ConsecutiveFailures counts the attempted deliveries since the last success, newest first,
	// that did not succeed (failed for good, or waiting for a retry).
	ConsecutiveFailures int
	// NextAttempt is the earliest time a pending delivery is tried (again); nil for none.
	NextAttempt *time.Time
}

// HealthOf reads the health from an endpoint's recent deliveries, newest first.
func HealthOf(recent []tenants.Delivery) Health {
	var h Health
	counting := true
	for _, d := range recent {
		switch {
		case d.Status == tenants.DeliveryDelivered:
			counting = false
			if d.LastAt != nil && (h.LastSuccess == nil || d.LastAt.After(*h.LastSuccess)) {
				h.LastSuccess = d.LastAt
			}
		case d.Attempts > 0 && counting:
			h.ConsecutiveFailures++
		}
		if d.Status == tenants.DeliveryPending && (h.NextAttempt == nil || d.NextAt.Before(*h.NextAttempt)) {
			next := d.NextAt
			h.NextAttempt = &next
		}
	}
	return h
}
