package tenants

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Outgoing webhook event types (docs/WEBHOOKS.md).
const (
	EventTypeConsentGranted      = "consent.granted"
	EventTypeConsentRevoked      = "consent.revoked"
	EventTypeConsentExpired      = "consent.expired"
	EventTypeRecordAnonymised    = "record.anonymised"
	EventTypeRetentionAnonymised = "retention.anonymised"
	// EventTypeConfirmationRequested: a submission to a form with double opt-in left a consent
	// pending; the tenant sends the person the confirmation URL it carries.
	EventTypeConfirmationRequested = "consent.confirmation_requested"
	// EventTypeConfirmationReminder is the service's own: the reminder mail of a confirmation
	// still waiting, a delivery to the tenant's mail endpoint only, never subscribed to.
	EventTypeConfirmationReminder = "consent.confirmation_reminder"
)

// eventTypes lists the event types an endpoint can subscribe to.
var eventTypes = []string{EventTypeConsentGranted, EventTypeConsentRevoked, EventTypeConsentExpired,
	EventTypeRecordAnonymised, EventTypeRetentionAnonymised, EventTypeConfirmationRequested}

// EventTypes returns them afresh: a caller may change its copy.
func EventTypes() []string { return slices.Clone(eventTypes) }

// OutboxEvent is one entry of the outbox: a change to tell the tenant's webhook endpoints about. It
// is written with the change itself, so that an acknowledged change never loses its event.
// Payload is the JSON body sent; it holds ids, kinds, consent names and statuses only.
type OutboxEvent struct {
	ID       string    `json:"id"`
	TenantID string    `json:"tenantId"`
	Type     string    `json:"type"`
	Time     time.Time `json:"time"`
	Payload  string    `json:"payload"`
}

// Endpoint is a tenant's outgoing webhook endpoint. Secret is the signing key (whsec_…),
// shown to the admin once. FailingSince is set when deliveries kept failing for the retry
// window: the endpoint is then disabled and receives nothing until it is enabled again.
type Endpoint struct {
	ID           string     `json:"id"`
	TenantID     string     `json:"tenantId"`
	URL          string     `json:"url"`
	Events       []string   `json:"events"`
	Secret       string     `json:"secret"`
	CreatedAt    time.Time  `json:"createdAt"`
	FailingSince *time.Time `json:"failingSince,omitempty"`
}

// MailEndpointURL is the URL of a tenant's mail endpoint: its deliveries are sent as mail
// through the tenant's mail server (tenant set-smtp), not posted. No webhook URL can be it.
const MailEndpointURL = "smtp:"

// Wants reports whether the endpoint subscribes to events of type typ.
func (e Endpoint) Wants(typ string) bool {
	for _, t := range e.Events {
		if t == typ {
			return true
		}
	}
	return false
}

// Live reports whether the endpoint takes new events: it is not disabled as failing.
func (e Endpoint) Live() bool { return e.FailingSince == nil }

// WantedEvents keeps the events that some live endpoint of their tenant wants, reading each
// tenant's endpoints once through endpoints. A store that writes an outbox applies it there
// (MongoDB), so an event nobody subscribed to costs one lookup of the tenant's endpoints
// instead of an outbox entry and a fan-out that would drop it; the fan-out checks the same rule
// again when it creates deliveries. A store that fans out at write (SQLite) needs no filter
// first: OutboxEvent.DeliveriesTo creates no delivery for such an event.
func WantedEvents(events []OutboxEvent, endpoints func(tenantID string) ([]Endpoint, error)) ([]OutboxEvent, error) {
	if len(events) == 0 {
		return events, nil
	}
	byTenant := map[string][]Endpoint{}
	out := events[:0:0]
	for _, ev := range events {
		eps, ok := byTenant[ev.TenantID]
		if !ok {
			var err error
			if eps, err = endpoints(ev.TenantID); err != nil {
				return nil, err
			}
			byTenant[ev.TenantID] = eps
		}
		for _, ep := range eps {
			if ep.Live() && ep.Wants(ev.Type) {
				out = append(out, ev)
				break
			}
		}
	}
	return out, nil
}

// DeliveriesTo returns the deliveries of ev to eps, the endpoints of its tenant: one to each
// that wants its type, is live and existed when it happened, pending and due at once. The
// dispatcher fans the outbox's events out with it; a store that reads the endpoints in the
// change's own transaction may fan out there (OutboxRepo).
func (ev OutboxEvent) DeliveriesTo(eps []Endpoint) []Delivery {
	var out []Delivery
	for _, ep := range eps {
		if ep.Wants(ev.Type) && ep.Live() && !ep.CreatedAt.After(ev.Time) {
			out = append(out, Delivery{EndpointID: ep.ID, EventID: ev.ID, TenantID: ev.TenantID, Type: ev.Type,
				Payload: ev.Payload, CreatedAt: ev.Time, Status: DeliveryPending, NextAt: ev.Time})
			// The reminder is a delivery of its own, created as of when it is due: its retry
			// window counts from then, not from the submission.
			if at, ok := ev.remindAt(); ok && ep.URL == MailEndpointURL {
				out = append(out, Delivery{EndpointID: ep.ID, EventID: ev.ID + "-reminder", TenantID: ev.TenantID,
					Type: EventTypeConfirmationReminder, Payload: ev.Payload, CreatedAt: at, Status: DeliveryPending, NextAt: at})
			}
		}
	}
	return out
}

// remindAt is the reminder time a consent.confirmation_requested event carries (its data's
// remindAt, which intake sets from the form), read without decoding the payload.
func (ev OutboxEvent) remindAt() (time.Time, bool) {
	const key = `"remindAt":"`
	if ev.Type != EventTypeConfirmationRequested {
		return time.Time{}, false
	}
	i := strings.LastIndex(ev.Payload, key)
	if i < 0 {
		return time.Time{}, false
	}
	v, _, ok := strings.Cut(ev.Payload[i+len(key):], `"`)
	if !ok {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, v)
	return at, err == nil
}

// Fanned is an event of the outbox with the deliveries its fan-out creates (none when no
// endpoint wants it any more).
type Fanned struct {
	Event      OutboxEvent
	Deliveries []Delivery
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one event on its way to one endpoint, with the outcome of its last attempt.
type Delivery struct {
	EndpointID string     `json:"endpointId"`
	EventID    string     `json:"eventId"`
	TenantID   string     `json:"tenantId"`
	Type       string     `json:"type"`
	Payload    string     `json:"payload"`
	CreatedAt  time.Time  `json:"createdAt"`
	Status     string     `json:"status"`
	Attempts   int        `json:"attempts"`
	NextAt     time.Time  `json:"nextAt"`
	LastAt     *time.Time `json:"lastAt,omitempty"`
	// LastResult is the HTTP status or a short error class of the last attempt; never a body.
	LastResult string `json:"lastResult,omitempty"`
}

// OutboxRepo keeps the outgoing webhook endpoints, the outbox and the deliveries. The writer
// fills the outbox (Ingestion.Events, Change.Events, ExpiryRun.Events) with the events some
// live endpoint of the tenant wants at that moment (WantedEvents); the dispatcher fans
// each event out to the endpoints that want it and delivers. A store that reads the tenant's
// endpoints in the change's own transaction may instead create the deliveries there
// (OutboxEvent.DeliveriesTo): the same deliveries, with the change, and no outbox entry to fan
// out later. The methods without a tenant id span tenants: they serve the dispatcher, which
// works for all of them.
type OutboxRepo interface {
	InsertEndpoint(ctx context.Context, e Endpoint) error
	Endpoint(ctx context.Context, tenantID, id string) (Endpoint, error)
	Endpoints(ctx context.Context, tenantID string) ([]Endpoint, error)
	DeleteEndpoint(ctx context.Context, tenantID, id string) error
	// SetFailing sets or clears (nil) the endpoint's FailingSince.
	SetFailing(ctx context.Context, tenantID, id string, since *time.Time) error
	// Unfanned returns up to limit events of the outbox, oldest first.
	Unfanned(ctx context.Context, limit int) ([]OutboxEvent, error)
	// Fan creates the deliveries of each event (one that exists is kept) and removes the
	// events from the outbox, all in one write where the store has transactions: a batch
	// costs one commit, not one per event.
	Fan(ctx context.Context, fanned []Fanned) error
	// PruneDeliveries removes the deliveries created before before that are not pending; it
	// returns how many.
	PruneDeliveries(ctx context.Context, before time.Time) (int64, error)
	// Due returns up to limit pending deliveries whose NextAt is at or before now, the
	// earliest NextAt first, leaving out those to the endpoints whose ids are in skip: the
	// dispatcher's endpoints that can take no more deliveries now, which it would only read to
	// pass over.
	Due(ctx context.Context, now time.Time, limit int, skip []string) ([]Delivery, error)
	// Update stores a delivery's status, attempts, NextAt, LastAt and LastResult. d is a
	// delivery as Due or Deliveries returned it, its outcome set: a store finds it by its
	// tenant, endpoint, event and CreatedAt (ErrNotFound when there is none).
	Update(ctx context.Context, d Delivery) error
	// Deliveries lists the endpoint's deliveries, newest first.
	Deliveries(ctx context.Context, tenantID, endpointID string, limit int) ([]Delivery, error)
}

// NewEndpoint returns a new endpoint of the tenant with a fresh id; url, events and secret
// are checked by the caller (package webhook).
func NewEndpoint(tenantID, url string, events []string, secret string, now time.Time) (Endpoint, error) {
	return Endpoint{ID: NewID("we_"), TenantID: tenantID, URL: url, Events: events, Secret: secret, CreatedAt: now}, nil
}
