package web

import (
	"net/url"
)

// The admin UI's paths. The templates link and post to these; package admin registers its
// routes on the same constants so the two cannot drift apart.
const (
	PathDashboard        = "/admin/"
	PathLogin            = "/admin/login"
	PathLogout           = "/admin/logout"
	PathPassword         = "/admin/password"
	PathForms            = "/admin/forms"
	PathOrganisation     = "/admin/organisation"
	PathFormNew          = "/admin/forms/new"
	PathKeys             = "/admin/keys"
	PathWebhooks         = "/admin/webhooks"
	PathMailchimpTokens  = "/admin/webhooks/mailchimp-tokens"
	PathSendGridKey      = "/admin/webhooks/sendgrid-key"
	PathSMSSecrets       = "/admin/webhooks/sms-secret"
	PathMailServer       = "/admin/webhooks/mail-server"
	PathMailTest         = "/admin/webhooks/mail-test"
	PathSMSNumbers       = "/admin/webhooks/sms-numbers"
	PathSMSNumberRemove  = "/admin/webhooks/sms-numbers/remove"
	PathSMSStopWords     = "/admin/webhooks/sms-stop-words"
	PathSendGridKeyClear = "/admin/webhooks/sendgrid-key/clear"
	PathSubmissions      = "/admin/submissions"
	PathAnonymise        = "/admin/anonymise"
	PathAnonymisePreview = "/admin/anonymise/preview"
	PathUnsubscribe      = "/admin/unsubscribe"
	PathAudit            = "/admin/audit"
	PathAuditExport      = "/admin/audit/export.csv"
	PathTenants          = "/admin/tenants"
	PathStaff            = "/admin/staff"
	PathChooseTenant     = "/admin/choose-tenant"
	PathFindPerson       = "/admin/submissions/find"
	PathRecords          = "/admin/records"
	PathExportPerson     = "/admin/anonymise/export"
	PathExpiring         = "/admin/consents/expiring"
	PathExpiringCSV      = "/admin/consents/expiring.csv"
	PathTenantRetention  = "/admin/tenants/retention"
	PathTenantCountry    = "/admin/tenants/country"
	// StaticPrefix is where Asset serves the files named by AssetPath.
	StaticPrefix = "/admin/static/"
)

// StaffDisablePath is where a staff user's disable button posts.
func StaffDisablePath(id string) string { return PathStaff + "/" + url.PathEscape(id) + "/disable" }

// StaffEnablePath is where a disabled staff user's enable button posts.
func StaffEnablePath(id string) string { return PathStaff + "/" + url.PathEscape(id) + "/enable" }

// FormPath is the edit page of a form; its form posts there too.
func FormPath(id string) string { return PathForms + "/" + url.PathEscape(id) }

// KeyRevokePath is where an API key's revoke button posts.
func KeyRevokePath(id string) string { return PathKeys + "/" + url.PathEscape(id) + "/revoke" }

// MailchimpTokenRevokePath is where a Mailchimp webhook token's revoke button posts.
func MailchimpTokenRevokePath(id string) string {
	return PathMailchimpTokens + "/" + url.PathEscape(id) + "/revoke"
}

// SubmissionPath is the detail page of a submission.
func SubmissionPath(id string) string { return PathSubmissions + "/" + url.PathEscape(id) }

// RecordPath is the page of a record: a form submission's is under PathSubmissions; a record
// of another kind, or of a kind not known (""), is found by its id under PathRecords.
func RecordPath(kind, id string) string {
	if kind == KindFormSubmission {
		return SubmissionPath(id)
	}
	return withQuery(PathRecords+"/"+url.PathEscape(id), url.Values{"kind": {kind}})
}

// URL is the submissions list with this filter at the given page.
// The cursor ("" = the first page) is a position in the list, as the pager's links carry it.
func (f SubmissionFilter) URL(cursor string) string {
	return withQuery(PathSubmissions, url.Values{
		"kind": {listKind(f.Kind)}, "form": {f.FormID}, "consent": {f.Consent}, "status": {f.Status}, "cursor": {cursor},
	})
}

// ListedKind is the kind the list shows: form submissions when none is set.
func (f SubmissionFilter) ListedKind() string {
	if f.Kind == "" {
		return KindFormSubmission
	}
	return f.Kind
}

// listKind is the kind parameter of a list URL: none for form submissions, the default list.
func listKind(kind string) string {
	if kind == KindFormSubmission || kind == "" {
		return ""
	}
	return kind
}

// ListPath is the list that holds records of kind: a record page's way back.
func ListPath(kind string) string {
	return SubmissionFilter{Kind: kind}.URL("")
}

// URL is the audit log with this filter at the given page.
func (f AuditFilter) URL(cursor string) string {
	v := f.values()
	v.Set("cursor", cursor)
	return withQuery(PathAudit, v)
}

// ExportURL is the CSV export of the audit log with this filter.
func (f AuditFilter) ExportURL() string { return withQuery(PathAuditExport, f.values()) }

func (f AuditFilter) values() url.Values {
	return url.Values{"action": {f.Action}, "actor": {f.Actor}, "from": {f.From}, "to": {f.To}}
}

// withQuery appends the non-empty values to path.
func withQuery(path string, v url.Values) string {
	for k, vs := range v {
		if len(vs) == 0 || vs[0] == "" {
			delete(v, k)
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

func (f ExpiringFilter) values() url.Values {
	return url.Values{"channel": {f.Channel}, "within": {f.Within}, "form": {f.FormID}}
}

// URL is the re-permission list with this filter, after cursor ("" = the first page).
func (f ExpiringFilter) URL(cursor string) string {
	v := f.values()
	v.Set("cursor", cursor)
	return withQuery(PathExpiring, v)
}

// CSVURL is the CSV export of the whole re-permission list with this filter.
func (f ExpiringFilter) CSVURL() string { return withQuery(PathExpiringCSV, f.values()) }
