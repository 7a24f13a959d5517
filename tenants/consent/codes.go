// Package consent holds the submission rules of docs/API.md §3: which keys are known, how
// consent flags, deadlines and contact fields are validated, and the codes failures yield.
package consent

import (
	"cmp"
	"slices"
)

// The validation codes in the order of docs/API.md §3.7: the core codes first, then the
// per-field codes.
const (
	codeFormIDMissing          = "form_id_missing"
	codeFormIDUnknown          = "form_id_unknown"
	codeSubmissionIDInvalid    = "submission_id_invalid"
	codeConsentMissing         = "consent_missing"
	codePrimaryMissing         = "consent_to_primary_purpose_missing"
	codePrimaryInvalid         = "consent_to_primary_purpose_invalid"
	codePrimaryDeclined        = "consent_to_primary_purpose_declined"
	codePrimaryDeadlineMissing = "consent_to_primary_purpose_deadline_missing"
	codePrimaryDeadlineInvalid = "consent_to_primary_purpose_deadline_invalid"
	codePhoneMissing           = "consent_to_general_contact_phone_missing"
	codePhoneInvalid           = "consent_to_general_contact_phone_invalid"
	codeEmailMissing           = "consent_to_general_contact_email_missing"
	codeEmailInvalid           = "consent_to_general_contact_email_invalid"
	codeGeneralDeadlineInvalid = "consent_to_general_contact_deadline_invalid"
)

// CodeTooManyIdentifiers refuses a record that carries more e-mail addresses and phone numbers
// (its own and those in custom fields) than one record may.
const CodeTooManyIdentifiers = "too_many_identifiers"

// CodeTextVersionUnknown refuses a consent_text_version that names no published consent text
// version of the record's form (docs/API.md §12), or is not a string.
const CodeTextVersionUnknown = "consent_text_version_unknown"

// CodeChallengeFailed refuses a web form submission whose spam challenge is missing, wrong,
// expired or spent already (docs/API.md §14).
const CodeChallengeFailed = "challenge_failed"

// codeOrder is the canonical order; Codes is a copy so that callers cannot reorder it.
var codeOrder = [...]string{
	codeFormIDMissing,
	codeFormIDUnknown,
	codeSubmissionIDInvalid,
	codeConsentMissing,
	codePrimaryMissing,
	codePrimaryInvalid,
	codePrimaryDeclined,
	codePrimaryDeadlineMissing,
	codePrimaryDeadlineInvalid,
	codePhoneMissing,
	codePhoneInvalid,
	codeEmailMissing,
	codeEmailInvalid,
	codeGeneralDeadlineInvalid,
	keyFirstName + "_invalid",
	keyLastName + "_invalid",
	keyNamePrefix + "_invalid",
	keyAddressStreet + "_invalid",
	keyAddressHouseNumber + "_invalid",
	keyAddressCity + "_invalid",
	keyAddressPostcode + "_invalid",
	keyConsentSource + "_invalid",
	keyConsentIPAddress + "_invalid",
	keyConsentTimestamp + "_invalid",
	CodeTextVersionUnknown,
	CodeTooManyIdentifiers,
	CodeChallengeFailed,
}

// Codes lists every validation code in the order responses list them.
var Codes = slices.Clone(codeOrder[:])

// codeRank is the position of code in codeOrder, or len(codeOrder) when it is not one.
func codeRank(code string) int {
	if i := slices.Index(codeOrder[:], code); i >= 0 {
		return i
	}
	return len(codeOrder)
}

// IsCode reports whether code is one of Codes: a code of the submission rules.
func IsCode(code string) bool { return codeRank(code) < len(codeOrder) }

// CompareCodes orders two codes as responses list them: in the order of Codes, codes not in
// Codes last, alphabetically.
func CompareCodes(a, b string) int {
	if c := cmp.Compare(codeRank(a), codeRank(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// SortCodes sorts codes into the order of Codes; codes not in Codes go last, alphabetically.
func SortCodes(codes []string) {
	slices.SortStableFunc(codes, CompareCodes)
}

// codeSet collects codes, each once.
type codeSet []string

func (s *codeSet) add(code string) {
	if !slices.Contains(*s, code) {
		*s = append(*s, code)
	}
}

// sorted returns the codes in canonical order, nil when there are none.
func (s codeSet) sorted() []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone([]string(s))
	SortCodes(out)
	return out
}
