package admin

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// The domain operations the admin UI calls, each declared here and small, so that a handler
// can be tested with a fake of just what it uses. Package cmd wires *ops.Service, which has
// them all, and its webhook diagnostics.

// Eraser previews and applies the erasure of a person.
type Eraser interface {
	Preview(ctx context.Context, tenantID string, id ops.Identity) (ops.Erasure, error)
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
}

// BulkEraser previews, requests and decides four-eyes bulk erasures.
type BulkEraser interface {
	PreviewBulk(ctx context.Context, tenantID string, in ops.BulkInput) (ops.BulkPreview, error)
	RequestBulk(ctx context.Context, tenantID, staffID, requestID string, in ops.BulkInput) (tenants.BulkErasure, error)
	DecideBulk(ctx context.Context, tenantID, id, staffID, requestID string, approve bool) error
}

// Unsubscriber withdraws a person's marketing consents, via names the channel.
type Unsubscriber interface {
	Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id ops.Identity) (int, error)
}

// PersonReader finds every record of a person, and apart from them those that mention them.
type PersonReader interface {
	FindPerson(ctx context.Context, tenantID string, id ops.Identity) (own, mentions []tenants.Record, err error)
}

// RightsReader serves the access export, the re-permission list and the retention preview.
type RightsReader interface {
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
	RetentionPreview(ctx context.Context, tenantID, formID, retention, from string) (int64, error)
}

// ErrorObserver counts events and failed store operations in the metrics.
type ErrorObserver interface {
	Observe() tenants.Observer
	ObserveError(err error)
}

// Operations is every domain operation the admin UI calls.
type Operations interface {
	Eraser
	BulkEraser
	Unsubscriber
	PersonReader
	RightsReader
	ErrorObserver
}

// WebhookDiagnostics reads the inbound webhook diagnostics and records the "Send test"
// deliveries (docs/API.md §8.4).
type WebhookDiagnostics interface {
	Stats(ctx context.Context, tenantID string) ([]tenants.WebhookStats, error)
	Delivered(tenantID, provider string, events, unsubscribed int)
}

// BulkRepo reads bulk erasure requests.
type BulkRepo interface {
	GetBulk(ctx context.Context, tenantID, id string) (tenants.BulkErasure, error)
	ListBulk(ctx context.Context, tenantID string) ([]tenants.BulkErasure, error)
}

var (
	_ Operations         = (*ops.Service)(nil)
	_ WebhookDiagnostics = (*ops.WebhookDiagnostics)(nil)
)

// unwired stands in for Ops when none is given (tests of what calls no operation): it
// observes nothing, as a nil *ops.Service did.
type unwired struct{ Operations }

func (unwired) Observe() tenants.Observer { return tenants.NopObserver{} }
func (unwired) ObserveError(error)        {}
