package admin

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// Operations is every case the admin UI calls, declared here, where its tests hand a fake of
// what a handler uses (fake_test.go). Package cmd wires *ops.Service, which has them all.
type Operations interface {
	// Preview and Erase count and apply the erasure of a person.
	Preview(ctx context.Context, tenantID string, id ops.Identity) (ops.Erasure, error)
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
	// PreviewBulk, RequestBulk and DecideBulk run four-eyes bulk erasures.
	PreviewBulk(ctx context.Context, tenantID string, in ops.BulkInput) (ops.BulkPreview, error)
	RequestBulk(ctx context.Context, tenantID, staffID, requestID string, in ops.BulkInput) (tenants.BulkErasure, error)
	DecideBulk(ctx context.Context, tenantID, id, staffID, requestID string, approve bool) error
	// Unsubscribe withdraws a person's marketing consents, via names the channel.
	Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id ops.Identity) (int, error)
	// UnsubscribeAll unsubscribes each person of a delivery once (the webhooks' "Send test").
	UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []ops.Identity) (int, error)
	// ApplySMS applies inbound SMS (the SMS providers' "Send test").
	ApplySMS(ctx context.Context, tenantID, actor, provider, requestID string, msgs []unsubscribe.Message) (ops.SMSOutcome, error)
	// FindPerson finds every record of a person, and apart from them those that mention them.
	FindPerson(ctx context.Context, tenantID string, id ops.Identity) (own, mentions []tenants.Record, err error)
	// Export, Expiring and RetentionPreview serve the access export, the re-permission list
	// and the retention preview.
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
	RetentionPreview(ctx context.Context, tenantID, formID, retention, from string) (int64, error)
	// Observe and ObserveError count events and failed store operations in the metrics.
	Observe() tenants.Observer
	ObserveError(err error)
}

// WebhookDiagnostics reads the inbound webhook diagnostics and records the "Send test"
// deliveries (docs/API.md §8.4).
type WebhookDiagnostics interface {
	Stats(ctx context.Context, tenantID string) ([]tenants.WebhookStats, error)
	Delivered(tenantID, provider string, events, unsubscribed int)
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
