// Package anonymise decides what in a record is personal data and strips it for GDPR
// erasure (docs/API.md §5). It is plain Go over tenants.Record, so the rule is tested
// without a store; the caller finds the records, stores the result and writes the audit.
package anonymise

import (
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// Strip is StripIn for a tenant without a default country.
func Strip(rec tenants.Record, declared map[string]bool, now time.Time) tenants.Record {
	return StripIn(rec, declared, "", now)
}

// StripIn returns a copy of rec with every personal datum removed (the input is not
// modified; maps and slices are deep-copied). declared holds the custom fields the form's
// definition marks personal, as names or dotted paths into nested fields (may be nil).
// country is the tenant's default country: national phone numbers of it count as personal
// values. now is stamped into AnonymisedAt (kept if already set).
//
// The copy is built field by field on purpose: a field added to tenants.Record later is
// dropped here until someone decides it may be kept.
func StripIn(rec tenants.Record, declared map[string]bool, country string, now time.Time) tenants.Record {
	at := now
	if rec.AnonymisedAt != nil {
		at = *rec.AnonymisedAt
	}
	return tenants.Record{
		ID:        rec.ID,
		TenantID:  rec.TenantID,
		Kind:      rec.Kind,
		PublicID:  rec.PublicID,
		FormID:    rec.FormID,
		CreatedAt: rec.CreatedAt,
		// Contact and Address stay zero: every field nil.
		Consents: tenants.Consents{
			PrimaryPurpose:      stripConsent(rec.Consents.PrimaryPurpose, country),
			GeneralContactEmail: stripConsent(rec.Consents.GeneralContactEmail, country),
			GeneralContactPhone: stripConsent(rec.Consents.GeneralContactPhone, country),
		},
		Payload:      stripFields(rec.Payload, lowerSet(declared), country),
		Fields:       stripFields(rec.Fields, nil, country),
		AnonymisedAt: &at,
	}
}

// stripConsent keeps a consent's status, times, source and notice version and drops the IP
// address (and a confirmation's address and user agent).
// The kept proof strings are still checked: a source or timestamp that holds an e-mail,
// phone number or IP address goes too.
func stripConsent(c tenants.Consent, country string) tenants.Consent {
	out := tenants.Consent{
		Status:    c.Status,
		GrantedAt: copyTime(c.GrantedAt),
		Deadline:  copyTime(c.Deadline),
		RevokedAt: copyTime(c.RevokedAt),
		Source:    keepString(c.Source, country),
		Timestamp: keepString(c.Timestamp, country),
		Text:      c.Text, // the notice version: no personal data, and the receipt's proof
		ConfirmBy: copyTime(c.ConfirmBy),
	}
	if c.Confirmation != nil {
		// When the person confirmed stays; from where and with what goes.
		out.Confirmation = &tenants.Confirmation{At: c.Confirmation.At}
	}
	if !personalValue(c.RevokedBy, country) {
		out.RevokedBy = c.RevokedBy
	}
	return out
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

func keepString(s *string, country string) *string {
	if s == nil || personalValue(*s, country) {
		return nil
	}
	c := *s
	return &c
}

func lowerSet(declared map[string]bool) map[string]bool {
	set := make(map[string]bool, len(declared))
	for k, personal := range declared {
		if personal {
			set[strings.ToLower(k)] = true
		}
	}
	return set
}

// IDs are a record's identifiers, normalised: its own (its contact fields: the record
// belongs to that person) and those only mentioned in its custom fields (another person named
// in it, docs/API.md §5.1). Each list is sorted, without duplicates; an identifier that is the
// record's own is not also a mention.
type IDs struct {
	Emails, Phones                   []string
	MentionedEmails, MentionedPhones []string
}

// Count is how many identifiers the record carries, own and mentioned.
func (ids IDs) Count() int {
	return len(ids.Emails) + len(ids.Phones) + len(ids.MentionedEmails) + len(ids.MentionedPhones)
}

// Identifiers returns the identifiers of rec: its contact e-mail and phone, and every string
// value anywhere in Payload and Fields (any depth of nested maps/arrays) that is one as a
// whole (MentionedIdentifier). A value only holding an identifier inside free text is not one:
// matching is on whole values (docs/API.md §5.2). country is the tenant's default country.
// These become the record's match keys (hashed by the caller).
func Identifiers(rec tenants.Record, country string) IDs {
	return identifiers(rec, country, func(p string) (string, bool) { return contact.NormalisePhone(p, country) })
}

// IdentifiersOfValidated is Identifiers for a record whose contact phone number is in E.164
// already, as validation leaves a submission's (contact.NormalisePhone; the e-mail address is
// kept as written and normalised here): it takes the number as it is instead of reading it with
// libphonenumber again, which was about 4 % of a submission's CPU. E.164 is its own normal
// form (contact's tests check it), so the result is Identifiers'.
func IdentifiersOfValidated(rec tenants.Record, country string) IDs {
	return identifiers(rec, country, func(p string) (string, bool) { return p, p != "" })
}

// identifiers is Identifiers with phone normalising the contact phone number.
func identifiers(rec tenants.Record, country string, phone func(string) (string, bool)) IDs {
	var ids IDs
	if rec.Contact.Email != nil {
		if e, ok := contact.NormaliseEmail(*rec.Contact.Email); ok {
			ids.Emails = []string{e}
		}
	}
	if rec.Contact.PhoneNumber != nil {
		if p, ok := phone(*rec.Contact.PhoneNumber); ok {
			ids.Phones = []string{p}
		}
	}
	add := func(s string) {
		switch kind, v := MentionedIdentifier(s, country); {
		case kind == "e" && !slices.Contains(ids.Emails, v):
			ids.MentionedEmails = append(ids.MentionedEmails, v)
		case kind == "p" && !slices.Contains(ids.Phones, v):
			ids.MentionedPhones = append(ids.MentionedPhones, v)
		}
	}
	for _, m := range []map[string]any{rec.Payload, rec.Fields} {
		if m == nil {
			continue
		}
		p, _ := plain(m)
		visitStrings(p, add)
	}
	ids.MentionedEmails, ids.MentionedPhones = sortedSet(ids.MentionedEmails), sortedSet(ids.MentionedPhones)
	return ids
}

// MentionedIdentifier reads a custom-field value as a whole: ("e", address) for an e-mail
// address, ("p", E.164) for a phone number — in international form, or a national number of
// country written with its trunk prefix and at least 8 digits (a bare short number is more
// likely a code than a phone) — and ("", "") for anything else.
func MentionedIdentifier(s, country string) (kind, normalised string) {
	if e, ok := contact.NormaliseEmail(s); ok {
		return "e", e
	}
	if p, ok := contact.NormalisePhone(s, ""); ok {
		return "p", p
	}
	if country != "" && nationalLike(s) {
		if p, ok := contact.NormalisePhone(s, country); ok {
			return "p", p
		}
	}
	return "", ""
}

// nationalLike reports whether s is written like a national phone number: a '0' trunk prefix
// (not "00"), then digits and the usual separators, at least 8 digits in all.
func nationalLike(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0") || strings.HasPrefix(s, "00") {
		return false
	}
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune(" -./()", r):
		default:
			return false
		}
	}
	return digits >= 8
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// PersonalField reports whether a top-level field of a record is personal as Strip sees it:
// declared personal by the form (any case), named like personal data, itself an identifier,
// or holding a personal value (nested values count whole: they may hold anything). Views
// that mask personal data ask this, so that what they hide is what erasure removes.
func PersonalField(declared map[string]bool, key string, v any, country string) bool {
	if lowerSet(declared)[strings.ToLower(key)] || PersonalKey(key) || personalValue(key, country) {
		return true
	}
	switch x := v.(type) {
	case string:
		return personalValue(x, country)
	case nil, bool, float64, int32, int64, int:
		return false
	}
	return true
}
