// Package provision holds the operations that set up and change what a tenant works with:
// tenants, API keys, forms, staff users, webhook credentials. The CLI and the admin UI both
// call it, so that each rule, id format and audit entry is written once. Every operation
// validates its input, reporting refusals as tenants.Violations (Field names the input, Code
// is one of the codes below), stores, and appends its audit entry.
package provision

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/sealed"
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

// Service runs the provisioning operations on a store.
type Service struct {
	Tenants  tenants.TenantRepo
	APIKeys  tenants.KeyRepo
	Forms    tenants.FormRepo
	Staff    tenants.StaffRepo
	Sessions tenants.SessionRepo
	Tokens   tenants.TokenRepo
	// Texts keeps the forms' consent text versions.
	Texts tenants.TextRepo
	// Endpoints are the outgoing webhook endpoints; WebhookPolicy says which URLs they may have.
	Endpoints     tenants.OutboxRepo
	WebhookPolicy webhook.Policy
	Audit         tenants.AuditLog
	Now           func() time.Time
	// SMS keeps the SMS provider secrets, sealed with SecretsKeys (sms.go).
	SMS         tenants.SMSRepo
	SecretsKeys func() *sealed.Keys
	// CheckMailServer checks a mail server's settings (mail.go), answering tenants.Violations
	// named by field; nil checks nothing.
	CheckMailServer func(tenants.MailServer) error
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

// StaffID is the staff user acting ("" for the command line and the system).
func (a Actor) StaffID() string {
	id, _ := strings.CutPrefix(a.Name, "staff:")
	if id == a.Name {
		return ""
	}
	return id
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
