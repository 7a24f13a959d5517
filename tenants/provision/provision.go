// Package provision holds the operations that set up and change what a tenant works with:
// tenants, API keys, forms, staff users, webhook credentials. The CLI and the admin UI both
// call it, so that each rule, id format and audit entry is written once. Every operation
// validates its input, reporting refusals as tenants.Violations (Field names the input, Code
// is one of the codes below), stores, and appends its audit entry.
package provision

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Violation codes: stable, for programs; the messages are for people.
const (
	CodeRequired   = "required"     // the input is empty
	CodeTooLong    = "too_long"     // longer than the rule allows
	CodeOutOfRange = "out_of_range" // a number or date outside its range
	CodeInvalid    = "invalid"      // not of the required form
	CodeUnknown    = "unknown"      // names nothing known (a tenant, a scope, a role, a type)
	CodeTaken      = "taken"        // unique, and in use
	CodeNotAllowed = "not_allowed"  // valid, but not for this actor or in this combination
)

// TenantRepo is what provisioning reads and changes of tenants.
type TenantRepo interface {
	Insert(ctx context.Context, t tenants.Tenant) error
	Get(ctx context.Context, id string) (tenants.Tenant, error)
	SetStatus(ctx context.Context, tenantID, status string) error
	SetSendGridKey(ctx context.Context, tenantID, key string) error
	SetRetention(ctx context.Context, tenantID, retention, from string) error
	SetDefaultCountry(ctx context.Context, tenantID, country string) error
}

// KeyRepo stores API keys.
type KeyRepo interface {
	Insert(ctx context.Context, k tenants.APIKey) error
	// List returns the tenant's keys, revoked and expired ones included.
	List(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
}

// FormRepo stores forms; Insert answers tenants.ErrConflict for a form id the tenant has.
type FormRepo interface {
	Insert(ctx context.Context, f tenants.Form) error
	Get(ctx context.Context, tenantID, formID string) (tenants.Form, error)
	Save(ctx context.Context, f tenants.Form) error
}

// StaffRepo stores staff users; Insert answers tenants.ErrConflict for an e-mail in use.
type StaffRepo interface {
	Insert(ctx context.Context, s tenants.Staff) error
	SetDisabled(ctx context.Context, id string, disabled bool) error
	SetPassword(ctx context.Context, id, hash string, mustChange bool) error
	// List returns the tenant's staff users.
	List(ctx context.Context, tenantID string) ([]tenants.Staff, error)
}

// SessionRepo ends a staff user's sessions.
type SessionRepo interface {
	DeleteStaff(ctx context.Context, staffID, keep string) error
}

// TokenRepo stores provider webhook tokens.
type TokenRepo interface {
	Insert(ctx context.Context, t tenants.WebhookToken) error
	Revoke(ctx context.Context, tenantID, id string, now time.Time) error
}

// Service runs the provisioning operations on a store.
type Service struct {
	Tenants  TenantRepo
	APIKeys  KeyRepo
	Forms    FormRepo
	Staff    StaffRepo
	Sessions SessionRepo
	Tokens   TokenRepo
	// Endpoints are the outgoing webhook endpoints; WebhookPolicy says which URLs they may have.
	Endpoints     EndpointRepo
	WebhookPolicy webhook.Policy
	Audit         tenants.AuditLog
	Now           func() time.Time
}

// Actor is who asks for an operation, as the audit log names them ("cli", "staff:<id>"),
// and the request it came in, if any.
type Actor struct {
	Name      string
	RequestID string
	// Operator is set for the command line: a password it sets follows
	// tenants.MinOperatorPasswordLength.
	Operator bool
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// audit appends the operation's entry to tenantID's log.
func (s *Service) audit(ctx context.Context, a Actor, tenantID, action, detail string, ids ...string) error {
	return s.Audit.Append(ctx, tenants.AuditEntry{Time: s.now(), TenantID: tenantID, Actor: a.Name, Action: action,
		RecordIDs: ids, Detail: detail, RequestID: a.RequestID})
}

// checks collects an input's violations.
type checks struct{ vs tenants.Violations }

func (c *checks) add(field, code, message string) {
	c.vs = append(c.vs, tenants.Violation{Field: field, Code: code, Message: message})
}

// err is the violations as an error, nil when there are none.
func (c *checks) err() error {
	if len(c.vs) == 0 {
		return nil
	}
	return c.vs
}

// tenant adds a violation of the input "tenant" when id names no tenant.
func (c *checks) tenant(ctx context.Context, s *Service, id string) error {
	if id == "" {
		c.add("tenant", CodeRequired, "Choose a tenant.")
		return nil
	}
	_, err := s.Tenants.Get(ctx, id)
	if errors.Is(err, tenants.ErrNotFound) {
		c.add("tenant", CodeUnknown, "Choose a tenant from the list.")
		return nil
	}
	return err
}

// name checks a name of at most max characters (not bytes), required or not.
func (c *checks) name(field, name string, max int, required bool, message string) {
	switch {
	case required && name == "":
		c.add(field, CodeRequired, message)
	case tooLong(name, max):
		c.add(field, CodeTooLong, message)
	}
}

// tooLong reports whether s has more than n characters (not bytes).
func tooLong(s string, n int) bool { return utf8.RuneCountInString(s) > n }
