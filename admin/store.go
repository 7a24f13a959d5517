package admin

import "github.com/consentforms/consentforms/tenants"

// Store is the storage the admin UI reads and changes: the store contract's repositories
// (package tenants declares them once); package cmd fills it with those of the configured
// store, and a test with fakes of what it calls.
type Store struct {
	Tenants  tenants.TenantRepo
	APIKeys  tenants.KeyRepo
	Forms    tenants.FormRepo
	Staff    tenants.StaffRepo
	Audit    tenants.AuditRepo
	Records  tenants.RecordRepo
	Tokens   tenants.TokenRepo
	Sessions tenants.SessionRepo
	// Chains reads the audit chain's verifications (the audit page).
	Chains tenants.AuditChainRepo
	// Outbox holds the outgoing webhook endpoints and their delivery logs.
	Outbox tenants.OutboxRepo
	Bulk   tenants.BulkRepo
	// Texts keeps the forms' consent text versions.
	Texts tenants.TextRepo
	// SMS keeps the SMS provider secrets, sealed (the webhook credentials page).
	SMS tenants.SMSRepo
}
