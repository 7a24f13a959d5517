package tenants

import "time"

// generalContact pairs each general-contact channel with its consent.
func (c *Consents) generalContact() [2]struct {
	channel string
	name    ConsentName
	consent *Consent
} {
	return [2]struct {
		channel string
		name    ConsentName
		consent *Consent
	}{{ChannelEmail, ConsentGeneralContactEmail, &c.GeneralContactEmail}, {ChannelPhone, ConsentGeneralContactPhone, &c.GeneralContactPhone}}
}

// ChannelOf is the general-contact channel of a consent name ("" for primary purpose).
func ChannelOf(name ConsentName) string {
	switch name {
	case ConsentGeneralContactEmail:
		return ChannelEmail
	case ConsentGeneralContactPhone:
		return ChannelPhone
	}
	return ""
}

// RequireConfirmation turns each general-contact consent granted on a channel the form asks
// double opt-in for into a pending one that lapses at confirmBy, and returns the names of
// those it changed. The deadline and proof of the grant stay, for the confirmation to keep;
// a confirmed consent is never made pending again.
func (c *Consents) RequireConfirmation(f Form, confirmBy time.Time) []ConsentName {
	var out []ConsentName
	for _, gc := range c.generalContact() {
		if gc.consent.Status == StatusGranted && gc.consent.Confirmation == nil && f.RequiresConfirmation(gc.channel) {
			gc.consent.Status = StatusPending
			gc.consent.GrantedAt = nil
			by := confirmBy.Truncate(time.Second) // as the link states it
			gc.consent.ConfirmBy = &by
			out = append(out, gc.name)
		}
	}
	return out
}

// Confirm turns the pending consent called name into a granted one at at, with the proof of
// the confirmation, keeping its deadline. It reports whether it changed anything: a consent
// that is not pending at at (confirmed, lapsed, never asked for) is left as it is, so that a
// confirmation never downgrades nor repeats.
func (c *Consents) Confirm(name ConsentName, at time.Time, ip, userAgent *string) bool {
	con := c.ByName(name)
	if con == nil || !con.PendingAt(at) {
		return false
	}
	con.Status = StatusGranted
	con.GrantedAt = &at
	con.Confirmation = &Confirmation{At: at, IPAddress: ip, UserAgent: userAgent}
	return true
}

// Withdrawable reports whether the record has general contact to withdraw at now: granted
// and live, or pending. Such a record carries a withdrawal link.
func (c Consents) Withdrawable(now time.Time) bool {
	for _, gc := range c.generalContact() {
		if st := gc.consent.DetailAt(now); st == StatusGranted || st == StatusPending {
			return true
		}
	}
	return false
}

// GrantedChannels are the general-contact channels granted and live at now.
func (c Consents) GrantedChannels(now time.Time) []string {
	var out []string
	for _, gc := range c.generalContact() {
		if gc.consent.StatusAt(now) == StatusGranted {
			out = append(out, gc.channel)
		}
	}
	return out
}

// AnyPending reports whether a consent is stored pending: awaiting the person's confirmation.
func (c Consents) AnyPending() bool {
	for _, con := range c.All() {
		if con.Status == StatusPending {
			return true
		}
	}
	return false
}
