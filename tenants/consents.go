package tenants

import "time"

// The consents of a record under the names the API, the audit log and the stores use.
const (
	ConsentPrimaryPurpose      = "primaryPurpose"
	ConsentGeneralContactEmail = "generalContactEmail"
	ConsentGeneralContactPhone = "generalContactPhone"
)

// ConsentNames lists the consent names in display order.
var ConsentNames = []string{ConsentPrimaryPurpose, ConsentGeneralContactEmail, ConsentGeneralContactPhone}

// ConsentStatuses lists every consent status in display order.
var ConsentStatuses = []ConsentStatus{StatusGranted, StatusExpired, StatusRevoked, StatusNotGranted}

// ByName returns the consent called name, nil for an unknown name.
func (c *Consents) ByName(name string) *Consent {
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

// NextDeadline is the earliest deadline of a consent still stored as granted, nil when none
// is: the moment the expiry job has something to record for this record.
func (c Consents) NextDeadline() *time.Time {
	var next *time.Time
	for _, name := range ConsentNames {
		con := c.ByName(name)
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
	for _, name := range ConsentNames {
		con := c.ByName(name)
		if con.Status == StatusGranted && con.StatusAt(now) == StatusExpired {
			con.Status = StatusExpired
			out = append(out, name)
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
