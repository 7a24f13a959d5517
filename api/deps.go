package api

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// The cases the API calls, each family as the few methods its handlers use. Package cmd wires
// the families of package ops (ops.New); a handler's test hands a fake of the one it calls
// (fake_test.go).

// Intake is the one intake case: every way in stores a record through it.
type Intake interface {
	Submit(ctx context.Context, sub ops.Submission) (ops.Accepted, error)
}

// Persons are the cases of one person the API runs.
type Persons interface {
	// Consents reads a person's consents.
	Consents(ctx context.Context, tenantID string, id ops.Identity) (ops.PersonConsents, error)
	// Erase anonymises every record of a person (docs/API.md §5).
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
	// UnsubscribeAll unsubscribes each person of a provider's delivery once, via names the provider.
	UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []ops.Identity) (int, error)
	// ApplySMS applies inbound SMS by the tenant's rules: opt-outs revoke general contact by
	// phone, START is audited, each message id once.
	ApplySMS(ctx context.Context, tenantID, actor, provider, requestID string, msgs []unsubscribe.Message) (ops.SMSOutcome, error)
}

// Rights serve the receipts (docs/API.md §12.3), the access export and the re-permission list.
type Rights interface {
	ReceiptOf(ctx context.Context, tenantID string, kind tenants.Kind, publicID string) (ops.Receipt, error)
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
}

// ReceiptKeys are the tenants' receipt signing keys: the newest signs, all are published.
type ReceiptKeys interface {
	Signing(ctx context.Context, tenantID string) (ops.ReceiptKey, error)
	All(ctx context.Context, tenantID string) ([]ops.ReceiptKey, error)
}

// Links are a record's confirmation and withdrawal links for the person (docs/API.md §13).
type Links interface {
	Links(ctx context.Context, rec tenants.Record) ops.RecordLinks
}

// Confirmations mail a pending confirmation again (docs/API.md §16).
type Confirmations interface {
	ResendConfirmation(ctx context.Context, tenantID, actor, requestID, publicID string) error
}

var (
	_ Confirmations = (*ops.LinkPages)(nil)
	_ ReceiptKeys   = ops.ReceiptKeys{}
	_ Intake        = (*ops.Intake)(nil)
	_ Persons       = (*ops.Persons)(nil)
	_ Rights        = (*ops.Rights)(nil)
	_ Links         = (*ops.Core)(nil)
)

// observer is the metrics' observer: Deps.Observer, else one that observes nothing.
func (s *server) observer() tenants.Observer {
	if s.Observer == nil {
		return tenants.NopObserver{}
	}
	return s.Observer
}
