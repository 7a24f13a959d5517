package admin

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// The cases the admin UI calls, each family as the few methods its handlers use. Package cmd
// wires the families of package ops (ops.New); a handler's test hands a fake of the one it
// calls (fake_test.go).

// Persons are the cases of one person the admin UI runs.
type Persons interface {
	// FindPerson finds every record of a person, and apart from them those that mention them.
	FindPerson(ctx context.Context, tenantID string, id ops.Identity) (own, mentions []tenants.Record, err error)
	// Erase anonymises every record of a person.
	Erase(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.Erasure, error)
	// Unsubscribe withdraws a person's marketing consents, via names the channel.
	Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id ops.Identity) (int, error)
	// UnsubscribeAll unsubscribes each person of a delivery once (the webhooks' "Send test").
	UnsubscribeAll(ctx context.Context, tenantID, actor, via, requestID string, ids []ops.Identity) (int, error)
	// ApplySMS applies inbound SMS (the SMS providers' "Send test").
	ApplySMS(ctx context.Context, tenantID, actor, provider, requestID string, msgs []unsubscribe.Message) (ops.SMSOutcome, error)
}

// Bulk runs four-eyes bulk erasures.
type Bulk interface {
	PreviewBulk(ctx context.Context, tenantID string, in ops.BulkInput) (ops.BulkPreview, error)
	RequestBulk(ctx context.Context, tenantID, staffID, requestID string, in ops.BulkInput) (tenants.BulkErasure, error)
	DecideBulk(ctx context.Context, tenantID, id, staffID, requestID string, approve bool) error
}

// Rights serve the access export, the re-permission list and the retention preview.
type Rights interface {
	Export(ctx context.Context, tenantID, actor, requestID string, id ops.Identity) (ops.PersonExport, error)
	Expiring(ctx context.Context, tenantID, actor, requestID string, r ops.ExpiringRequest) (ops.ExpiringPage, error)
	RetentionPreview(ctx context.Context, tenantID, formID, retention, from string) (int64, error)
}

// Requests are the data-subject requests filed on the preference page: the list, the copy of
// an access request, carrying one out.
type Requests interface {
	List(ctx context.Context, tenantID, status string) ([]tenants.SubjectRequest, error)
	Export(ctx context.Context, tenantID, id, actor, requestID string) (ops.PersonExport, error)
	Complete(ctx context.Context, tenantID, id, actor, requestID string) (tenants.SubjectRequest, ops.Erasure, error)
}

// WebhookDiagnostics reads the inbound webhook diagnostics and records the "Send test"
// deliveries (docs/API.md §8.4).
type WebhookDiagnostics interface {
	Stats(ctx context.Context, tenantID string) ([]tenants.WebhookStats, error)
	Delivered(tenantID, provider string, events, unsubscribed int)
}

// MailServers read a tenant's mail server and send it a test mail (package cmd wires them to
// the sealed settings and the mail package).
type MailServers interface {
	// MailServer is the tenant's mail server and when it was set; tenants.ErrNotFound when none.
	MailServer(ctx context.Context, tenantID string) (tenants.MailServer, time.Time, error)
	// TestMail sends a test mail to the address through the tenant's server and returns its
	// answer (never logged: the address is the staff member's) and whether it took the mail.
	TestMail(ctx context.Context, tenantID, to string) (answer string, ok bool, err error)
}

var (
	_ Persons            = (*ops.Persons)(nil)
	_ Bulk               = (*ops.Bulk)(nil)
	_ Rights             = (*ops.Rights)(nil)
	_ WebhookDiagnostics = (*ops.WebhookDiagnostics)(nil)
)

// observer is the metrics' observer: Deps.Observer, else one that observes nothing.
func (h *handler) observer() tenants.Observer {
	if h.Observer == nil {
		return tenants.NopObserver{}
	}
	return h.Observer
}
