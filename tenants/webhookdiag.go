package tenants

import (
	"context"
	"time"
)

// Why an inbound unsubscribe webhook delivery was refused (docs/API.md §8.4). Only the reason
// is kept, never the body or any address.
const (
	RefusedBadSignature   = "bad_signature"
	RefusedStaleTimestamp = "stale_timestamp"
	RefusedUnknownToken   = "unknown_token"
	RefusedWrongScope     = "wrong_scope"
	RefusedMalformedBody  = "malformed_body"
	// RefusedNoSecret: an SMS provider's signed delivery for a tenant that set no secret.
	RefusedNoSecret = "no_secret"
)

// WebhookDiagDays is how many days of delivery counts are kept.
const WebhookDiagDays = 30

// WebhookDelta is what one instance saw of a tenant's deliveries from one provider on one
// day (UTC, "2006-01-02") since it last wrote: the last delivery and refusal (zero times when
// none) and the counts to add.
type WebhookDelta struct {
	TenantID, Provider, Day string
	LastDelivery            time.Time
	LastEvents              int
	LastUnsubscribed        int
	LastRefusal             time.Time
	LastReason              string
	Accepted, Refused       int
}

// WebhookStats are a tenant's diagnostics of one provider's webhook.
type WebhookStats struct {
	TenantID, Provider string
	LastDelivery       time.Time // zero: none yet
	LastEvents         int       // the provider events it carried
	LastUnsubscribed   int       // the records whose consent it revoked
	LastRefusal        time.Time // zero: none yet
	LastReason         string
	Days               []WebhookDay // newest first, days with a delivery only
}

// WebhookDay counts one day's deliveries.
type WebhookDay struct {
	Day               string // "2006-01-02", UTC
	Accepted, Refused int
}

// WebhookDiagRepo keeps the inbound webhook diagnostics.
type WebhookDiagRepo interface {
	// Add merges deltas: a later last delivery or refusal replaces the stored one, the counts
	// add up, and days before keepFrom are dropped.
	Add(ctx context.Context, deltas []WebhookDelta, keepFrom string) error
	// Stats returns the tenant's diagnostics per provider (ascending), days from `from` on.
	Stats(ctx context.Context, tenantID, from string) ([]WebhookStats, error)
}

// Merge adds d to the stats of its tenant and provider.
func (s *WebhookStats) Merge(d WebhookDelta) {
	if d.LastDelivery.After(s.LastDelivery) {
		s.LastDelivery, s.LastEvents, s.LastUnsubscribed = d.LastDelivery, d.LastEvents, d.LastUnsubscribed
	}
	if d.LastRefusal.After(s.LastRefusal) {
		s.LastRefusal, s.LastReason = d.LastRefusal, d.LastReason
	}
	for i, day := range s.Days {
		if day.Day == d.Day {
			s.Days[i].Accepted += d.Accepted
			s.Days[i].Refused += d.Refused
			return
		}
	}
	s.Days = append(s.Days, WebhookDay{Day: d.Day, Accepted: d.Accepted, Refused: d.Refused})
	for i := len(s.Days) - 1; i > 0 && s.Days[i].Day > s.Days[i-1].Day; i-- {
		s.Days[i], s.Days[i-1] = s.Days[i-1], s.Days[i]
	}
}
