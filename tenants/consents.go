package tenants

import (
	"iter"
	"time"
)

// ConsentName names one of the consents of a record, as the API, the audit log and the stores
// name it (docs/API.md §4.1).
type ConsentName string

// The consents of a record.
const (
	ConsentPrimaryPurpose      ConsentName = "primaryPurpose"
	ConsentGeneralContactEmail ConsentName = "generalContactEmail"
	ConsentGeneralContactPhone ConsentName = "generalContactPhone"
)

// ConsentNames lists the consent names in display order.
var ConsentNames = []ConsentName{ConsentPrimaryPurpose, ConsentGeneralContactEmail, ConsentGeneralContactPhone}

// ConsentStatuses lists every consent status in display order.
var ConsentStatuses = []ConsentStatus{StatusGranted, StatusExpired, StatusRevoked, StatusNotGranted}

// ByName returns the consent called name, nil for an unknown name.
func (c *Consents) ByName(name ConsentName) *Consent {
	switch name {
	case ConsentPrimaryPurpose:
		return &c.PrimaryPurpose
	case ConsentGeneralContactEmail:
		return &c.GeneralContactEmail
	case ConsentGeneralContactPhone:
		return &c.GeneralContactPhone
	}
	return nil
}

// All yields each consent of the record with its name, in the order of ConsentNames; the
// consents can be changed through the pointers.
func (c *Consents) All() iter.Seq2[ConsentName, *Consent] {
	return func(yield func(ConsentName, *Consent) bool) {
		_ = yield(ConsentPrimaryPurpose, &c.PrimaryPurpose) &&
			yield(ConsentGeneralContactEmail, &c.GeneralContactEmail) &&
			yield(ConsentGeneralContactPhone, &c.GeneralContactPhone)
	}
}

// NextDeadline is the earliest deadline of a consent still stored as granted, nil when none
// is: the moment the expiry job has something to record for this record.
func (c Consents) NextDeadline() *time.Time {
	var next *time.Time
	for _, con := range c.All() {
		if con.Status == StatusGranted && con.Deadline != nil && (next == nil || con.Deadline.Before(*next)) {
			d := *con.Deadline
			next = &d
		}
	}
	return next
}

// ExpireDue stores as expired every granted consent whose deadline is at or before now and
// returns their names.
func (c *Consents) ExpireDue(now time.Time) []string {
	var out []string
	for name, con := range c.All() {
		if con.Status == StatusGranted && con.StatusAt(now) == StatusExpired {
			con.Status = StatusExpired
			out = append(out, string(name))
		}
	}
	return out
}

// RevokeGeneralContact revokes both general-contact consents (e-mail and phone) where they
// are granted or expired, leaving primary purpose as it is, and reports whether anything
// changed: a repeat changes nothing.
func (c *Consents) RevokeGeneralContact(at time.Time, via string) bool {
	changed := false
	for _, con := range []*Consent{&c.GeneralContactEmail, &c.GeneralContactPhone} {
		if con.Status == StatusGranted || con.Status == StatusExpired {
			con.Status = StatusRevoked
			con.RevokedAt = &at
			con.RevokedBy = via
			changed = true
		}
	}
	return changed
}
