package tenants

import (
	"context"
	"slices"
	"time"
)

// Data-subject rights and consent hygiene (docs/API.md §5.5, §7.3 and §10): the access export,
// the re-permission list of consents about to expire, and retention.

// Audit actions of the access export, the re-permission list and retention.
const (
	ActionGDPRExported           = "gdpr.exported"
	ActionConsentsExpiringListed = "consents.expiring_listed"
	ActionRetentionAnonymised    = "retention.anonymised"
)

// What a retention counts from.
const (
	RetentionFromCreated        = "created"
	RetentionFromConsentsLapsed = "consents-lapsed"
	defaultRetentionFrom        = RetentionFromCreated
)

// retentionFroms lists what a retention may count from, in display order.
var retentionFroms = []string{RetentionFromCreated, RetentionFromConsentsLapsed}

// RetentionFroms returns them afresh: a caller may change its copy.
func RetentionFroms() []string { return slices.Clone(retentionFroms) }

// RetentionBasis is what a retention set with from counts from: created when from is empty.
func RetentionBasis(from string) string {
	if from == "" {
		return defaultRetentionFrom
	}
	return from
}

// LapsedAt is the moment the record's last consent stopped being granted, nil while a consent
// is granted without a deadline (it never lapses by itself). A granted consent with a deadline
// lapses at it, an expired one at its deadline, a revoked one at its revocation (or at its
// deadline, when that came first), a pending one when its confirmation period ends. A record that never had a consent granted lapsed when it
// was created. It is fixed by the stored consents, so stores keep it beside them and retention
// finds due records through an index.
func (c Consents) LapsedAt(created time.Time) *time.Time {
	var last *time.Time
	later := func(t *time.Time) {
		if t == nil {
			t = &created
		}
		if last == nil || t.After(*last) {
			v := *t
			last = &v
		}
	}
	for _, con := range c.All() {
		switch con.Status {
		case StatusGranted:
			if con.Deadline == nil {
				return nil
			}
			later(con.Deadline)
		case StatusExpired:
			later(con.Deadline)
		case StatusPending:
			// Unconfirmed, it lapses when its confirmation period ends; confirmed, the record
			// is rewritten and its lapse computed again.
			later(con.ConfirmBy)
		case StatusRevoked:
			t := con.RevokedAt
			if con.Deadline != nil && (t == nil || con.Deadline.Before(*t)) {
				t = con.Deadline
			}
			later(t)
		}
	}
	if last == nil {
		t := created
		return &t
	}
	u := last.UTC()
	return &u
}

// ExpiringQuery selects one page of the re-permission list: the tenant's records whose
// general-contact consent Consent (ConsentGeneralContactEmail or ConsentGeneralContactPhone)
// is stored as granted with a deadline after After and at or before Until, of records not
// anonymised, ordered by deadline, then record id; after Cursor when it is set.
type ExpiringQuery struct {
	Consent ConsentName
	FormID  string // "" = every form
	After   time.Time
	Until   time.Time
	Cursor  *ExpiringCursor
	Limit   int
}

// ExpiringCursor is the position after the last item of a page: its deadline and record id.
type ExpiringCursor struct {
	Deadline time.Time
	ID       string
}

// DueQuery selects the tenant's records of FormID ("" = the records of no form) that are not
// anonymised and whose retention basis (From: RetentionFromCreated or
// RetentionFromConsentsLapsed) is at or before Before, oldest first, at most Limit.
type DueQuery struct {
	FormID string
	From   string
	Before time.Time
	Limit  int
}

// RightsRepo is what the access export, the re-permission list and retention read; every
// store's RecordRepo has it.
type RightsRepo interface {
	// Expiring returns one page of the re-permission list, through an index ordered by deadline.
	Expiring(ctx context.Context, tenantID string, q ExpiringQuery) ([]Record, error)
	// Due returns records retention anonymises, through an index (Limit 0: no limit).
	Due(ctx context.Context, tenantID string, q DueQuery) ([]Record, error)
	// CountDue counts what Due would return without a limit.
	CountDue(ctx context.Context, tenantID string, q DueQuery) (int64, error)
}
