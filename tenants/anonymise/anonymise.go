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

// Strip returns a copy of rec with every personal datum removed (the input is not
// modified; maps and slices are deep-copied). declared holds custom field names the
// form's definition marks personal (may be nil). now is stamped into AnonymisedAt
// (kept if already set).
//
// The copy is built field by field on purpose: a field added to tenants.Record later is
// dropped here until someone decides it may be kept.
func Strip(rec tenants.Record, declared map[string]bool, now time.Time) tenants.Record {
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
			PrimaryPurpose:      stripConsent(rec.Consents.PrimaryPurpose),
			GeneralContactEmail: stripConsent(rec.Consents.GeneralContactEmail),
			GeneralContactPhone: stripConsent(rec.Consents.GeneralContactPhone),
		},
		Payload:      stripFields(rec.Payload, lowerSet(declared)),
		Fields:       stripFields(rec.Fields, nil),
		AnonymisedAt: &at,
	}
}

// stripConsent keeps a consent's status, times and source and drops the IP address.
// The kept proof strings are still checked: a source or timestamp that holds an e-mail,
// phone number or IP address goes too.
func stripConsent(c tenants.Consent) tenants.Consent {
	out := tenants.Consent{
		Status:    c.Status,
		GrantedAt: copyTime(c.GrantedAt),
		Deadline:  copyTime(c.Deadline),
		RevokedAt: copyTime(c.RevokedAt),
		Source:    keepString(c.Source),
		Timestamp: keepString(c.Timestamp),
	}
	if !PersonalValue(c.RevokedBy) {
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

func keepString(s *string) *string {
	if s == nil || PersonalValue(*s) {
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

// Identifiers returns the normalised e-mail addresses and E.164 phone numbers found in
// rec: its contact e-mail and phone, and every string value anywhere in Payload and
// Fields (any depth of nested maps/arrays) that normalises as one
// (contact.NormaliseEmail / contact.NormalisePhone). Sorted, without duplicates. These
// become the record's match keys (hashed by the caller). A value only mentioning an
// identifier inside free text is not one: matching is on whole values (docs/API.md §5.2).
func Identifiers(rec tenants.Record) (emails, phones []string) {
	add := func(s string) {
		if e, ok := contact.NormaliseEmail(s); ok {
			emails = append(emails, e)
		} else if p, ok := contact.NormalisePhone(s); ok {
			phones = append(phones, p)
		}
	}
	if rec.Contact.Email != nil {
		add(*rec.Contact.Email)
	}
	if rec.Contact.PhoneNumber != nil {
		add(*rec.Contact.PhoneNumber)
	}
	for _, m := range []map[string]any{rec.Payload, rec.Fields} {
		if m == nil {
			continue
		}
		p, _ := plain(m)
		visitStrings(p, add)
	}
	return sortedSet(emails), sortedSet(phones)
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
