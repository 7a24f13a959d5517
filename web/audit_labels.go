package web

import (
	"github.com/a-h/templ"
	"github.com/consentforms/consentforms/tenants"
)

// isoDate makes a text input take a date as YYYY-MM-DD whatever the browser's locale (a
// date input shows the locale's order, 11/25/2026 in en-US).
func isoDate() templ.Attributes {
	return templ.Attributes{"placeholder": "2026-01-31", "pattern": `\d{4}-\d{2}-\d{2}`, "inputmode": "numeric", "autocomplete": "off"}
}

// actionLabels are the audit actions in words; the code stays in the tooltip, the filter's
// value and the CSV export.
var actionLabels = map[string]string{
	tenants.ActionSubmissionAccepted:      "Submission received",
	tenants.ActionRecordAccepted:          "Record received",
	tenants.ActionRecordCreated:           "Record created",
	tenants.ActionConsentGranted:          "Consent granted",
	tenants.ActionConsentRevoked:          "Consent revoked",
	tenants.ActionConsentExpired:          "Consent expired",
	tenants.ActionGDPRAnonymised:          "Person erased",
	tenants.ActionGDPRMentionsRemoved:     "Mentions of a person removed",
	tenants.ActionAPIKeyIssued:            "API key issued",
	tenants.ActionAPIKeyRevoked:           "API key revoked",
	tenants.ActionFormChanged:             "Form changed",
	tenants.ActionStaffLogin:              "Staff signed in",
	tenants.ActionStaffCreated:            "Staff user created",
	tenants.ActionStaffDisabled:           "Staff user disabled",
	tenants.ActionStaffEnabled:            "Staff user enabled",
	tenants.ActionStaffPassword:           "Password changed",
	tenants.ActionTenantCreated:           "Tenant created",
	tenants.ActionTenantChanged:           "Tenant changed",
	tenants.ActionWebhookChanged:          "Webhook changed",
	tenants.ActionSMSNumberAdded:          "SMS sending number added",
	tenants.ActionSMSNumberRemoved:        "SMS sending number removed",
	tenants.ActionSMSStopWords:            "SMS stop words changed",
	tenants.ActionSMSOptInKeyword:         "SMS opt-in keyword (nothing granted)",
	tenants.ActionBulkRequested:           "Bulk erasure requested",
	tenants.ActionBulkApproved:            "Bulk erasure approved",
	tenants.ActionBulkRejected:            "Bulk erasure rejected",
	tenants.ActionBulkCompleted:           "Bulk erasure completed",
	tenants.ActionBulkExpired:             "Bulk erasure request expired",
	tenants.ActionSubjectRequestFiled:     "Data-subject request filed",
	tenants.ActionSubjectRequestCompleted: "Data-subject request carried out",
	tenants.ActionGDPRExported:            "Person's data exported",
	tenants.ActionConsentsExpiringListed:  "Expiring consents listed",
	tenants.ActionRetentionAnonymised:     "Anonymised by retention",
}

// ActionLabel is an audit action in words; a code it does not know is shown as it is.
func ActionLabel(code string) string {
	if l, ok := actionLabels[code]; ok {
		return l
	}
	return code
}
