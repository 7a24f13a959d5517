package intake

import (
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
)

// codeFormUnknown is the submission rules' code for a form that is unknown, another tenant's
// or closed (docs/API.md §3.3).
const codeFormUnknown = "form_id_unknown"

// FormUnknown returns vs with form_id_unknown added, for a draft whose form the caller found
// unknown or closed: the submission rules' violations in the order of docs/API.md §3.7. A failed
// own field gives way to it, as own fields are checked only once the submission rules pass.
func FormUnknown(vs []tenants.Violation) []tenants.Violation { return withCode(vs, codeFormUnknown) }

// TextVersionUnknown returns vs with consent_text_version_unknown added, for a draft whose
// consent_text_version names no version of its form (docs/API.md §12), as FormUnknown does.
func TextVersionUnknown(vs []tenants.Violation) []tenants.Violation {
	return withCode(vs, consent.CodeTextVersionUnknown)
}

// withCode returns the submission rules' violations of vs with code's added once, in order.
func withCode(vs []tenants.Violation, code string) []tenants.Violation {
	out := make([]tenants.Violation, 0, len(vs)+1)
	for _, v := range vs {
		if consent.IsCode(v.Code) && v.Code != code {
			out = append(out, v)
		}
	}
	out = append(out, ruleViolation(code))
	slices.SortStableFunc(out, func(a, b tenants.Violation) int { return consent.CompareCodes(a.Code, b.Code) })
	return out
}

// RuleCodes returns the codes of vs when the submission rules of docs/API.md §3 refused a
// record of kind (every failed code, in order), nil when an own field of the kind did (§6):
// the API lists the former in one body, the latter is the body.
func RuleCodes(kind tenants.Kind, vs []tenants.Violation) []string {
	if kind == tenants.KindPhoneCallTask || len(vs) == 0 || !consent.IsCode(vs[0].Code) {
		return nil
	}
	codes := make([]string, len(vs))
	for i, v := range vs {
		codes[i] = v.Code
	}
	return codes
}

// ruleViolations turns the submission rules' codes into violations, sorted.
func ruleViolations(codes []string) []tenants.Violation {
	consent.SortCodes(codes)
	vs := make([]tenants.Violation, len(codes))
	for i, c := range codes {
		vs[i] = ruleViolation(c)
	}
	return vs
}

// ruleViolation is the violation of one code of the submission rules; its field is the code
// without its ending ("consent_to_primary_purpose_deadline" for
// "consent_to_primary_purpose_deadline_missing").
func ruleViolation(code string) tenants.Violation {
	switch code {
	case consent.CodeTooManyIdentifiers:
		return tooMany
	case consent.CodeTextVersionUnknown:
		return tenants.Violation{Field: "consent_text_version", Code: code, Message: "consent_text_version names no published consent text version of the form."}
	}
	field, message := code, "is not valid."
	for _, e := range []struct{ suffix, message string }{
		{"_missing", "is required."}, {"_invalid", "is not valid."}, {"_declined", "was declined."}, {"_unknown", "names no open form of the tenant."},
	} {
		if f, ok := strings.CutSuffix(field, e.suffix); ok {
			field, message = f, e.message
		}
	}
	if code == "consent_missing" {
		return tenants.Violation{Field: field, Code: code, Message: "At least one consent must be granted."}
	}
	return tenants.Violation{Field: field, Code: code, Message: field + " " + message}
}
