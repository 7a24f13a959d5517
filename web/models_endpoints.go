package web

import (
	"net/url"
	"time"
)

// The outgoing webhook pages (docs/WEBHOOKS.md).
const (
	PathEndpoints = "/admin/outgoing-webhooks"
)

// EndpointPath is an endpoint's delivery log; EndpointDeletePath and EndpointEnablePath are
// where its buttons post.
func EndpointPath(id string) string       { return PathEndpoints + "/" + url.PathEscape(id) }
func EndpointDeletePath(id string) string { return EndpointPath(id) + "/delete" }
func EndpointEnablePath(id string) string { return EndpointPath(id) + "/enable" }

// EndpointItem is one outgoing webhook endpoint as listed; the secret is never part of it.
type EndpointItem struct {
	ID           string
	URL          string
	Events       []string
	CreatedAt    time.Time
	FailingSince *time.Time
	// The health its recent deliveries show: the last success (nil: none), the attempted
	// deliveries that failed since, and when a pending one is tried next (nil: none).
	LastSuccess         *time.Time
	ConsecutiveFailures int
	NextAttempt         *time.Time
}

// EndpointsPage lists the tenant's outgoing webhook endpoints (GET PathEndpoints) with the
// form to add one.
type EndpointsPage struct {
	Layout    Layout
	Endpoints []EndpointItem
	// EventTypes are the types offered; Form holds what was typed when a form is shown again.
	EventTypes []string
	FormURL    string
	FormEvents []string
	Errors     FieldErrors
	CanManage  bool
}

// EndpointCreatedPage shows a new endpoint's signing secret, once.
type EndpointCreatedPage struct {
	Layout   Layout
	Endpoint EndpointItem
	Secret   string
}

// DeliveryItem is one delivery of an event to an endpoint, with its last attempt.
type DeliveryItem struct {
	EventID    string
	Type       string
	CreatedAt  time.Time
	Status     string
	Attempts   int
	LastAt     *time.Time
	LastResult string
	NextAt     *time.Time // set while pending
}

// DeliveriesPage is an endpoint's delivery log, newest first (GET EndpointPath).
type DeliveriesPage struct {
	Layout     Layout
	Endpoint   EndpointItem
	Deliveries []DeliveryItem
	CanManage  bool
}
