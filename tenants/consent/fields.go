package consent

import (
	"strings"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
)

// The known keys of a submission body (docs/API.md §3.1, the proof fields included).
const (
	keyFormID                  = "form_id"
	keySubmissionID            = "submission_id"
	keyEmail                   = "email"
	keyPhoneNumber             = "phone_number"
	keyFirstName               = "first_name"
	keyLastName                = "last_name"
	keyNamePrefix              = "name_prefix"
	keyAddressStreet           = "address_street"
	keyAddressHouseNumber      = "address_house_number"
	keyAddressCity             = "address_city"
	keyAddressPostcode         = "address_postcode"
	keyPrimary                 = "consent_to_primary_purpose"
	keyPrimaryDeadlineDate     = "consent_to_primary_purpose_deadline_date"
	keyPrimaryDeadlineInterval = "consent_to_primary_purpose_deadline_interval"
	keyGeneralEmail            = "consent_to_general_contact_email"
	keyGeneralPhone            = "consent_to_general_contact_phone"
	keyGeneralDeadlineDate     = "consent_to_general_contact_deadline_date"
	keyGeneralDeadlineInterval = "consent_to_general_contact_deadline_interval"
	keyConsentSource           = "consent_source"
	keyConsentIPAddress        = "consent_ip_address"
	keyConsentTimestamp        = "consent_timestamp"
	keyTextVersion             = "consent_text_version"
)

// isStandardKey reports whether key is one of the known keys above.
func isStandardKey(key string) bool {
	switch key {
	case keyFormID, keySubmissionID, keyEmail, keyPhoneNumber, keyFirstName, keyLastName,
		keyNamePrefix, keyAddressStreet, keyAddressHouseNumber, keyAddressCity, keyAddressPostcode,
		keyPrimary, keyPrimaryDeadlineDate, keyPrimaryDeadlineInterval, keyGeneralEmail,
		keyGeneralPhone, keyGeneralDeadlineDate, keyGeneralDeadlineInterval, keyConsentSource,
		keyConsentIPAddress, keyConsentTimestamp, keyTextVersion:
		return true
	}
	return false
}

// Length limits of docs/API.md §3.1.
const (
	maxIDLength   = 128  // form_id and submission_id, in characters
	maxTextLength = 1000 // every other free-text known field, in characters
)

// flag is the state of a consent flag in a body.
type flag int

const (
	flagAbsent flag = iota
	flagTrue
	flagFalse
	flagInvalid
)

// readFlag classifies a consent flag's raw value; null counts as absent.
func readFlag(v any) flag {
	switch b := v.(type) {
	case nil:
		return flagAbsent
	case bool:
		if b {
			return flagTrue
		}
		return flagFalse
	}
	return flagInvalid
}

// readText reads a free-text known field: nil when absent, null or blank; ok=false when the
// value is not a string, not UTF-8 or longer than maxTextLength characters.
func readText(v any) (value *string, ok bool) {
	if v == nil {
		return nil, true
	}
	s, isString := v.(string)
	if !isString {
		return nil, false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxTextLength {
		return nil, false
	}
	return &s, true
}

// validSubmissionID reports whether s is 1–128 characters from A–Z a–z 0–9 . _ : -.
func validSubmissionID(s string) bool { return tenants.ValidID(s) }

// clonePtr returns a fresh copy of *p, so that consents never share a pointer.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// IsKnownKey reports whether key is a known submission key, not a custom field: a form's
// hosted page asks the primary consent as required when it has a custom field.
func IsKnownKey(key string) bool { return isStandardKey(key) }
