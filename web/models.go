// Package web holds the admin UI's presentation: templ components, the view models they
// render, and the embedded static assets. Handlers in package admin fill the view models
// (plain structs) and render the components; nothing here touches the store or the request.
// Of the domain it reads only the names of things (scopes, statuses, kinds, consents, field
// types), from package tenants, so that each is defined once.
package web

import (
	"strconv"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Layout is the frame every page shares: title, the signed-in user, navigation, CSRF token
// and one flash message.
type Layout struct {
	// Title is the page title, shown in <title> and as the page heading.
	Title string
	// User is the signed-in staff user; nil on the sign-in page and error pages before sign-in.
	User *User
	// Nav lists the navigation entries this user may use, in display order (see BuildNav).
	Nav []NavItem
	// CSRF is the session's token, rendered into every POST form as _csrf and into
	// hx-headers as X-CSRF-Token.
	CSRF string
	// Flash is a one-time message; the zero value shows nothing.
	Flash Flash
}

// User is the identity shown in the page header.
type User struct {
	Name       string
	Email      string
	Role       string // platform_admin, tenant_admin, support or viewer
	TenantName string // the tenant worked on; empty for a platform admin who has chosen none
	// SwitchTenant shows the tenant as a link to PathChooseTenant (platform admins).
	SwitchTenant bool
}

// NavItem is one navigation entry. Key names it for data-testid="nav-<Key>".
type NavItem struct {
	Key    string
	Label  string
	Href   string
	Active bool
}

// FlashKind is the kind of a flash message.
type FlashKind string

// The flash kinds; each renders with data-testid="flash-<kind>".
const (
	FlashSuccess FlashKind = "success"
	FlashError   FlashKind = "error"
)

// Flash is a message carried to the next page, e.g. after a redirect.
type Flash struct {
	Kind FlashKind
	Text string
}

// FieldErrors maps an input's name to the message shown beside it. A nil map has no errors.
type FieldErrors map[string]string

// Get returns the error for the named field, or "".
func (e FieldErrors) Get(name string) string { return e[name] }

// Has reports whether the named field has an error.
func (e FieldErrors) Has(name string) bool { return e[name] != "" }

// Option is one choice of a <select>.
type Option struct {
	Value string
	Label string
}

// Pager links a list's page to its neighbours: the URLs of the newer and the older rows
// ("" where there are none). A list pages by position, so its links hold on while rows arrive.
type Pager struct {
	Newer, Older string
}

// LoginPage is the sign-in form (GET/POST PathLogin).
type LoginPage struct {
	Layout Layout
	Email  string // re-filled after a failed attempt; the password never is
	Errors FieldErrors
}

// RecordCounts counts records per record type; the dashboard and anonymisation use it.
type RecordCounts struct {
	FormSubmissions         int
	DigitisationSubmissions int
	CanvassingSubmissions   int
	PhoneCallTasks          int
}

// Total is the sum over all record types.
func (c RecordCounts) Total() int {
	return c.FormSubmissions + c.DigitisationSubmissions + c.CanvassingSubmissions + c.PhoneCallTasks
}

// byKey is the counts under the API's names of the record kinds.
func (c RecordCounts) byKey() map[string]int {
	return map[string]int{"formSubmissions": c.FormSubmissions, "digitisationSubmissions": c.DigitisationSubmissions,
		"canvassingSubmissions": c.CanvassingSubmissions, "phoneCallTasks": c.PhoneCallTasks}
}

// StatusCounts counts one consent's records per status.
type StatusCounts struct {
	Granted    int
	Expired    int
	Revoked    int
	NotGranted int
}

// ConsentCounts holds status counts for each of the three consents.
type ConsentCounts struct {
	PrimaryPurpose      StatusCounts
	GeneralContactEmail StatusCounts
	GeneralContactPhone StatusCounts
}

// DashboardPage is the start page (GET PathDashboard).
type DashboardPage struct {
	Layout  Layout
	Records RecordCounts
	// Contactable is one row per record kind, in display order.
	Contactable []KindConsents
	// Consents counts the live records of every kind per consent and status.
	Consents ConsentCounts
	// Submissions is records created per day and kind; Expiring the general-contact consents
	// whose deadline falls in each coming week.
	Submissions, Expiring Chart
	// Recent is the latest audit activity, newest first (a handful of entries).
	Recent []AuditEntry
	// OptIn counts the double opt-in requests per channel.
	OptIn OptInView
	// AwaitingApproval are the bulk erasure requests this user may decide (a tenant admin's,
	// requested by someone else) and nobody has decided yet, oldest first.
	AwaitingApproval []BulkItem
}

// Custom field types a form can declare.
const (
	FieldText    = tenants.FieldText
	FieldNumber  = tenants.FieldNumber
	FieldBoolean = tenants.FieldBoolean
	FieldDate    = tenants.FieldDate
	FieldChoice  = tenants.FieldChoice
)

// FormItem is one row of the forms list.
type FormItem struct {
	ID         string
	Name       string
	Open       bool
	FieldCount int
	CreatedAt  time.Time
}

// FormsPage lists the tenant's forms (GET PathForms).
type FormsPage struct {
	Layout  Layout
	Forms   []FormItem
	CanEdit bool // shows "New form" and edit links
	// Identity is the organisation as people see it (POST PathOrganisation with legal_name,
	// contact_email, privacy_url, address, jurisdiction); IdentityErrors a refusal's.
	Identity       OrganisationIdentity
	IdentityErrors FieldErrors
}

// OrganisationIdentity is the organisation's identity as the Forms page shows and sets it.
type OrganisationIdentity struct {
	LegalName, ContactEmail, PrivacyURL, Address, Jurisdiction string
}

// CustomField is one custom field row of a form definition.
type CustomField struct {
	Name     string
	Type     string // one of FieldTypeOptions
	Personal bool
	// Label, Help and Options (one per line or comma) shape the hosted page; Required makes
	// it ask the field. Order is the row's place as typed (rows are saved in its order).
	Label, Help, Options string
	Required             bool
	Order                int
}

// FormInput is the form definition as edited. Posted as form_id, name, open ("on"),
// field_count and, per row i, field.<i>.name, field.<i>.type, field.<i>.personal ("on").
// Rows with an empty name are blank and should be ignored.
type FormInput struct {
	ID     string
	Name   string
	Open   bool
	Fields []CustomField
	// Retention is the form's retention as typed ("" = none) and what it counts from.
	Retention     string
	RetentionFrom string
	// PrimaryFor and ContactFor are how long the public ways' consents last, as typed.
	PrimaryFor, ContactFor string
	// HostedPage and AllowNoJS: the hosted page is served; it takes posts without script.
	HostedPage, AllowNoJS bool
}

// ProviderWebhook is the unsubscribe webhook URL of one provider with a setup hint.
type ProviderWebhook struct {
	Provider string // brevo, mailchimp, sendgrid, mailjet, postmark
	Label    string
	URL      string
	Hint     string
}

// FormEditPage creates (New) or edits a form (GET PathFormNew, GET/POST FormPath(id)).
type FormEditPage struct {
	Layout  Layout
	New     bool // creating: form id is editable and the form posts to PathForms
	Form    FormInput
	Errors  FieldErrors // keys: form_id, name, field.<i>.name, field.<i>.type
	CanEdit bool        // false renders the definition read-only
	// Webhooks are the tenant's unsubscribe webhook URLs (see ProviderWebhooks); shown when editing.
	Webhooks []ProviderWebhook
	// RetentionDue is how many of the form's records its saved retention anonymises within
	// the next 30 days; shown when the saved form has a retention.
	RetentionDue *int64
	// Texts are the form's published consent text versions, newest first.
	Texts []TextItem
	// Embed is how the form goes on the organisation's website; shown when editing.
	Embed FormEmbed
	// Arriving are the custom fields of the form's latest submissions; shown for a saved form.
	Arriving ArrivingFields
}

// ArrivingFields are the custom fields found in the Read latest live submissions of a form.
type ArrivingFields struct {
	Read   int
	Fields []ArrivingField
}

// ArrivingField is one custom field as it arrives: in how many of the submissions read, and
// whether the form declares it (and as personal).
type ArrivingField struct {
	Name               string
	Seen               int
	Declared, Personal bool
}

// The API key scopes (docs/API.md §1.3).
const (
	ScopeSubmissionsWrite = tenants.ScopeSubmissionsWrite
	ScopeRecordsWrite     = tenants.ScopeRecordsWrite
	ScopeSubmissionsRead  = tenants.ScopeSubmissionsRead
	ScopeGDPRAnonymise    = tenants.ScopeGDPRAnonymise
	ScopeUnsubscribeWrite = tenants.ScopeUnsubscribeWrite
	ScopeGDPRExport       = tenants.ScopeGDPRExport
	ScopeAll              = tenants.ScopeAll
)

// KeyItem is one API key as listed; the secret is never part of it.
type KeyItem struct {
	ID         string
	Name       string
	Prefix     string // the visible, non-secret prefix, e.g. cf_<keyid>
	Scopes     []string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// Forms and Origins bind a publishable key (Publishable); empty for a secret key.
	Publishable bool
	Forms       []string
	Origins     []string
}

// KeyInput is the issue form as filled: name, scope (repeated checkbox), expires (YYYY-MM-DD).
type KeyInput struct {
	Name    string
	Scopes  []string
	Expires string
	// Publishable is the publishable-key form: Forms and Origins comma- or line-separated.
	Publishable    bool
	Forms, Origins string
}

// KeysPage lists API keys and offers the issue form (GET/POST PathKeys).
type KeysPage struct {
	Layout    Layout
	Keys      []KeyItem
	Form      KeyInput
	Errors    FieldErrors // keys: name, scope, expires
	CanManage bool        // shows the issue form and revoke buttons
	Now       time.Time   // to tell expired keys; zero means time.Now()
}

// KeyIssuedPage shows a newly issued key's plaintext, once.
type KeyIssuedPage struct {
	Layout    Layout
	Key       KeyItem
	Plaintext string
}

// WebhookTokenItem is one Mailchimp webhook token as listed; the secret is never part of it.
type WebhookTokenItem struct {
	ID         string
	Name       string
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// WebhooksPage manages webhook credentials (GET PathWebhooks): Mailchimp tokens
// (POST PathMailchimpTokens with name) and the SendGrid verification key
// (POST PathSendGridKey with public_key; POST PathSendGridKeyClear).
type WebhooksPage struct {
	Layout          Layout
	MailchimpTokens []WebhookTokenItem
	TokenName       string
	// SendGridKey is the stored public key, or what was pasted when it failed validation.
	SendGridKey      string
	SendGridKeySaved bool        // a key is stored (offers "Clear")
	Errors           FieldErrors // keys: name, public_key, number, sms_stop_words
	CanManage        bool
	// Deliveries are the diagnostics of each provider's webhook, in ProviderWebhooks order.
	Deliveries []WebhookDiagItem
	// SMSSecrets say, per SMS provider, whether and when its secret was set (never the secret).
	SMSSecrets []SMSSecretItem
	// SMSNumbers are the numbers the tenant sends SMS from (POST PathSMSNumbers with number;
	// POST PathSMSNumberRemove with number); SMSNumber is a refused number shown again.
	SMSNumbers []SMSNumberItem
	SMSNumber  string
	// SMSStopWords are the tenant's own opt-out words, comma-separated (POST PathSMSStopWords
	// with sms_stop_words); SMSLanguages the languages whose words apply besides them.
	SMSStopWords string
	SMSLanguages []string
	// MailServer is the tenant's mail server as set (never its password; nil none), MailForm
	// what the form shows (the settings, or what was typed when they were refused), MailTest
	// the outcome of the test mail just sent (nil none).
	MailServer *MailServerView
	MailForm   MailServerView
	MailTest   *MailTestResult
}

// MailServerView is a tenant's mail server as staff see it: everything but the password.
type MailServerView struct {
	Host, TLS, User, From, ReplyTo string
	Port                           int
	SetAt                          time.Time
}

// MailTestResult is what the mail server answered to the test mail.
type MailTestResult struct {
	OK     bool
	Answer string
}

// SMSNumberItem is one of the tenant's SMS sending numbers.
type SMSNumberItem struct {
	Number  string
	AddedAt time.Time
}

// SMSSecretItem is one SMS provider's secret as the page shows it: set or not, and when.
type SMSSecretItem struct {
	Provider, Label, SecretName string
	SetAt                       *time.Time
	Error                       string // the refusal of the secret just posted
}

// WebhookTokenIssuedPage shows a newly issued Mailchimp token and its full URL, once.
type WebhookTokenIssuedPage struct {
	Layout Layout
	Token  string
	URL    string // the full webhook URL including ?token=
}

// portValue is a port as a form shows it ("" for none).
func portValue(port int) string {
	if port == 0 {
		return ""
	}
	return strconv.Itoa(port)
}
