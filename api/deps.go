package api

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/ops"
)

// The domain operations the API calls, each declared here and small, so that a handler can be
// tested with a fake of just what it uses. Package cmd wires *ops.Service, which has them all.

// Intake stores the record a parsed body describes, with its audit entry, and says whether it
// was stored or repeated a stored one (ops.Service.IngestDraft).
type Intake interface {
	IngestDraft(ctx context.Context, tenantID string, d intake.Draft, vs []tenants.Violation, actor, requestID string) (string, ops.Outcome, error)
}

// Eraser anonymises every record of a person (docs/API.md §5).
type Eraser interface {
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
}

// Unsubscriber withdraws a person's marketing consents, via names the provider.
type Unsubscriber interface {
	Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id ops.Identity) (int, error)
}

// ConsentReader reads a person's consents.
type ConsentReader interface {
	Consents(ctx context.Context, tenantID string, id ops.Identity) (ops.PersonConsents, error)
}

// RightsReader serves the access export and the re-permission list.
type RightsReader interface {
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
}

// ErrorObserver counts events and failed store operations in the metrics.
type ErrorObserver interface {
	Observe() tenants.Observer
	ObserveError(err error)
}

// Operations is every domain operation the API calls.
type Operations interface {
	Intake
	Eraser
	Unsubscriber
	ConsentReader
	RightsReader
	ErrorObserver
}

var _ Operations = (*ops.Service)(nil)

// unwired stands in for Ops when none is given (tests of what calls no operation): it
// observes nothing, as a nil *ops.Service did.
type unwired struct{ Operations }

func (unwired) Observe() tenants.Observer { return tenants.NopObserver{} }
func (unwired) ObserveError(error)        {}
