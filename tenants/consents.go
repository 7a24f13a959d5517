package tenants

import (
	"iter"
	"slices"
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

// consentNames lists the consent names in display order.
var consentNames = []ConsentName{ConsentPrimaryPurpose, ConsentGeneralContactEmail, ConsentGeneralContactPhone}

// ConsentNames returns them afresh: a caller may change its copy.
func ConsentNames() []ConsentName { return slices.Clone(consentNames) }

// consentStatuses lists every consent status in display order.
var consentStatuses = []ConsentStatus{StatusGranted, StatusExpired, StatusRevoked, StatusNotGranted}

// ConsentStatuses returns them afresh: a caller may change its copy.
func ConsentStatuses() []ConsentStatus { return slices.Clone(consentStatuses) }

// ByName returns the consent called name, nil for an unknown name.
func (c *Consents) ByName(name ConsentName) *Consent {
	if i := consentIndex(name); i >= 0 {
		return c.inOrder()[i]
	}
	return nil
}

// consentIndex is the position of name in ConsentNames, -1 for an unknown name.
func consentIndex(name ConsentName) int { return slices.Index(consentNames, name) }

// inOrder returns the record's consents in the order of ConsentNames.
func (c *Consents) inOrder() [3]*Consent {
	return [3]*Consent{&c.PrimaryPurpose, &c.GeneralContactEmail, &c.GeneralContactPhone}
}

// All yields each consent of the record with its name, in the order of ConsentNames; the
// consents can be changed through the pointers.
func (c *Consents) All() iter.Seq2[ConsentName, *Consent] {
	return func(yield func(ConsentName, *Consent) bool) {
		for i, con := range c.inOrder() {
			if !yield(consentNames[i], con) {
				return
			}
		}
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
// are granted, expired or pending (a confirmation still awaited is cancelled: its link can no
// longer confirm), leaving primary purpose as it is, and reports whether anything changed: a
// repeat changes nothing.
func (c *Consents) RevokeGeneralContact(at time.Time, via string) bool {
	return c.RevokeChannels(at, via, true, true)
}

// RevokeChannels revokes the general-contact consent of each channel named (an SMS "STOP"
// names the phone alone) where it is granted, expired or pending, and reports whether anything changed.
func (c *Consents) RevokeChannels(at time.Time, via string, email, phone bool) bool {
	changed := false
	for _, ch := range []struct {
		con  *Consent
		want bool
	}{{&c.GeneralContactEmail, email}, {&c.GeneralContactPhone, phone}} {
		if con := ch.con; ch.want && (con.Status == StatusGranted || con.Status == StatusExpired || con.Status == StatusPending) {
			con.Status = StatusRevoked
			con.RevokedAt = &at
			con.RevokedBy = via
			changed = true
		}
	}
	return changed
}

// RevokePrimary withdraws the primary purpose (granted or expired) at at, naming via; it
// reports whether it changed anything.
func (c *Consents) RevokePrimary(at time.Time, via string) bool {
	con := &c.PrimaryPurpose
	if con.Status != StatusGranted && con.Status != StatusExpired {
		return false
	}
	con.Status, con.RevokedAt, con.RevokedBy = StatusRevoked, &at, via
	return true
}
