package api

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// Operations is every case the API calls, declared here, where its tests hand a fake of what
// a handler uses (fake_test.go). Package cmd wires *ops.Service, which has them all.
type Operations interface {
	// Submit is the one intake case: every way in stores a record through it.
	Submit(ctx context.Context, sub ops.Submission) (ops.Accepted, error)
	// Receipt returns the consent receipt of a form submission (docs/API.md §12.3).
	Receipt(ctx context.Context, tenantID, publicID string) (ops.Receipt, error)
	// Erase anonymises every record of a person (docs/API.md §5).
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
	// Unsubscribe withdraws a person's marketing consents, via names the provider.
	Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id ops.Identity) (int, error)
	// UnsubscribeAll unsubscribes each person of a delivery once.
	UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []ops.Identity) (int, error)
	// ApplySMS applies inbound SMS by the tenant's rules: opt-outs revoke general contact by
	// phone, START is audited, each message id once.
	ApplySMS(ctx context.Context, tenantID, actor, provider, requestID string, msgs []unsubscribe.Message) (ops.SMSOutcome, error)
	// Consents reads a person's consents.
	Consents(ctx context.Context, tenantID string, id ops.Identity) (ops.PersonConsents, error)
	// Export and Expiring serve the access export and the re-permission list.
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
	// Links are a record's confirmation and withdrawal links for the person (docs/API.md §13).
	Links(ctx context.Context, rec tenants.Record) ops.RecordLinks
	// Observe and ObserveError count events and failed store operations in the metrics.
	Observe() tenants.Observer
	ObserveError(err error)
}

var _ Operations = (*ops.Service)(nil)

// unwired stands in for Ops when none is given (tests of what calls no operation): it
// observes nothing, as a nil *ops.Service did.
type unwired struct{ Operations }

func (unwired) Observe() tenants.Observer { return tenants.NopObserver{} }
func (unwired) ObserveError(error)        {}
