package web

import (
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// The consent statuses (docs/API.md §4.2), as the badges show them.
const (
	StatusGranted    = string(tenants.StatusGranted)
	StatusExpired    = string(tenants.StatusExpired)
	StatusRevoked    = string(tenants.StatusRevoked)
	StatusNotGranted = string(tenants.StatusNotGranted)
	// StatusPending shows on a record's page only: lists and filters read it as not granted.
	StatusPending = string(tenants.StatusPending)
)

// The record kinds under their API names.
const (
	KindFormSubmission = string(tenants.KindFormSubmission)
	KindDigitisation   = string(tenants.KindDigitisation)
	KindCanvassing     = string(tenants.KindCanvassing)
	KindPhoneCallTask  = string(tenants.KindPhoneCallTask)
)

// KindLabel is the human label of a record kind.
func KindLabel(kind string) string {
	switch kind {
	case KindFormSubmission:
		return "Form submission"
	case KindDigitisation:
		return "Digitisation submission"
	case KindCanvassing:
		return "Canvassing submission"
	case KindPhoneCallTask:
		return "Phone call task"
	}
	return kind
}

// KindPlural names the records of a kind as a list does: "Form submissions".
func KindPlural(kind string) string {
	if kind == "" {
		kind = KindFormSubmission
	}
	return KindLabel(kind) + "s"
}

// SubmissionFilter narrows the submissions list: query parameters form, consent, status.
type SubmissionFilter struct {
	// Kind is the record kind listed (one of the Kind constants; "" reads as form submissions).
	Kind    string
	FormID  string
	Consent string // primaryPurpose, generalContactEmail, generalContactPhone, or "" for any
	Status  string // one of the Status constants, or "" for any
}

// SubmissionItem is one row of the submissions list. Email and Phone are given in full and
// are always masked when rendered.
type SubmissionItem struct {
	ID                  string
	FormID              string
	FormName            string // "" when the form has none
	CreatedAt           time.Time
	Email               string
	Phone               string
	PrimaryPurpose      string // status
	GeneralContactEmail string // status
	GeneralContactPhone string // status
	Anonymised          bool
}

// SubmissionsPage is the paged, filtered submissions list (GET PathSubmissions).
type SubmissionsPage struct {
	Layout Layout
	Filter SubmissionFilter
	Forms  []Option // the form filter's choices (value: form id)
	Items  []SubmissionItem
	Pager  Pager
	// Total is how many records match the filters.
	Total ListTotal
	// Kinds are the tabs of the list, one per record kind.
	Kinds []Option
	// CanFind offers the search for one person's records by e-mail or phone.
	CanFind bool
}

// ContactView is a record's contact data; "" is absent or removed.
type ContactView struct {
	Email       string
	PhoneNumber string
	FirstName   string
	LastName    string
	NamePrefix  string
}

// AddressView is a record's postal address; "" is absent or removed.
type AddressView struct {
	Street      string
	HouseNumber string
	City        string
	Postcode    string
}

// ConsentRow is one consent with its lifecycle and proof.
type ConsentRow struct {
	Status    string // read through the deadline (StatusAt), one of the Status constants
	Deadline  *time.Time
	GrantedAt *time.Time
	RevokedAt *time.Time
	Source    string
	Timestamp string // consent_timestamp as sent
	IPAddress string // personal: masked unless ShowPersonal
	// Notice is the exact text the consent was given under (nil: none was published).
	Notice *NoticeView
}

// ConsentRows holds the three consents of a record.
type ConsentRows struct {
	PrimaryPurpose      ConsentRow
	GeneralContactEmail ConsentRow
	GeneralContactPhone ConsentRow
}

// PayloadField is one custom field of a record (see PayloadFields).
type PayloadField struct {
	Key      string
	Value    string
	Personal bool // masked unless ShowPersonal
}

// SubmissionDetail is one record in full: a form submission or a record of another kind.
type SubmissionDetail struct {
	Kind         string // one of the Kind constants
	ID           string
	FormID       string
	CreatedAt    time.Time
	AnonymisedAt *time.Time
	Contact      ContactView
	Address      AddressView
	Consents     ConsentRows
	// Fields are the kind's own fields (canvasser_id, notes, …); Payload the custom fields.
	Fields  []PayloadField
	Payload []PayloadField
}

// SubmissionPage shows one record (GET RecordPath(kind, id)).
type SubmissionPage struct {
	Layout     Layout
	Submission SubmissionDetail
	// Others are the tenant's other records with the same id, of other kinds: Value is the
	// page, Label the kind.
	Others []Option
	// ShowPersonal renders contact, address, IP address and personal payload fields in full;
	// otherwise they are masked.
	ShowPersonal bool
}

// AnonymiseSearchPage is step 1 of anonymisation: e-mail and/or phone (GET PathAnonymise).
type AnonymiseSearchPage struct {
	Layout Layout
	Email  string
	Phone  string
	Errors FieldErrors // keys: email, phone
}

// AnonymisePreviewPage is step 2 (POST PathAnonymisePreview): what would be anonymised, and
// the confirmation, posted to PathAnonymise as email, phone and confirm (must be "ERASE").
type AnonymisePreviewPage struct {
	Layout Layout
	Email  string
	Phone  string
	Counts RecordCounts
	// Mentions counts the records of others that mention the person: only the mention goes.
	Mentions int
	// Records are the person's records the erasure anonymises, MentionRecords those of others
	// it removes the mention from; newest first, at most FindPersonShown each.
	Records, MentionRecords []PreviewRecord
	Errors                  FieldErrors // key: confirm
	// CanExport shows "Export data" next to anonymise (docs/API.md §5.5).
	CanExport bool
}

// PreviewRecord is one record an erasure will touch, enough to tell it is the right person's:
// Email and Phone are given in full and always masked when rendered (none for a mention,
// whose contact data is someone else's).
type PreviewRecord struct {
	Kind      string
	ID        string
	FormID    string
	FormName  string // "" when the form has none (or no form: canvassing, phone calls)
	CreatedAt time.Time
	Email     string
	Phone     string
}

// AnonymiseConfirmWord is the word the user must type to confirm anonymisation.
const AnonymiseConfirmWord = "ERASE"

// AnonymiseResultPage is step 3 (POST PathAnonymise): what was anonymised.
type AnonymiseResultPage struct {
	Layout          Layout
	Counts          RecordCounts
	RemovedMentions int // records of others the person's mentions were removed from
}

// UnsubscribeResult is the outcome of a manual unsubscribe.
type UnsubscribeResult struct {
	Revoked int
}

// UnsubscribePage revokes general-contact consents by e-mail and/or phone
// (GET/POST PathUnsubscribe).
type UnsubscribePage struct {
	Layout Layout
	Email  string
	Phone  string
	Errors FieldErrors // keys: email, phone
	Result *UnsubscribeResult
}

// AuditFilter narrows the audit log: query parameters action, actor, from, to (YYYY-MM-DD).
type AuditFilter struct {
	Action string
	Actor  string
	From   string
	To     string
}

// AuditEntry is one audit log entry as shown.
type AuditEntry struct {
	Time   time.Time
	Actor  Actor
	Action string
	// Detail says in words what the action concerned, e.g. the consents of a consent entry
	// ("primary purpose, general contact by e-mail"); "" adds nothing.
	Detail    string
	Records   []RecordRef
	Counts    map[string]int
	RequestID string
}

// Actor is who made an audit entry: ID as the log stores it (staff:<id>, key:<id>, system)
// and Label as staff read it (an e-mail address, masked for roles that may not read contact
// data, or an API key's name); the ID is shown on hover.
type Actor struct {
	ID    string
	Label string
}

// RecordRef is an id an audit entry names, with the page that shows it ("" for none).
type RecordRef struct {
	ID   string
	Href string
	// Label names what the id is (a staff user's e-mail address); "" shows the id.
	Label string
}

// AuditRecordsShown is how many ids an audit row lists before "+N more".
const AuditRecordsShown = 3

// AuditPage is the paged, filtered audit log (GET PathAudit).
type AuditPage struct {
	Layout  Layout
	Filter  AuditFilter
	Actions []string // the action filter's choices
	Entries []AuditEntry
	Pager   Pager
	Errors  FieldErrors // keys: from, to
	Chain   ChainStatus // the last verification of the audit chain
}

// TenantItem is one tenant as listed.
type TenantItem struct {
	ID        string
	Name      string
	RateLimit int // requests per second per API key
	Suspended bool
	CreatedAt time.Time
	// Retention is the default retention of the tenant's records of no form, as a phrase
	// ("2y from created"), "" when none.
	Retention string
	// DefaultCountry is the country national phone numbers are read in, "" when none.
	DefaultCountry string
}

// TenantInput is the create-tenant form as filled: name, rate_limit.
type TenantInput struct {
	Name      string
	RateLimit string
}

// TenantsPage lists and creates tenants; platform admins only (GET/POST PathTenants).
type TenantsPage struct {
	Layout  Layout
	Tenants []TenantItem
	Form    TenantInput
	Errors  FieldErrors // keys: name, rate_limit
	// Retention is the default-retention form as filled; RetentionErrors its errors (keys:
	// tenant, retention, retention_from).
	Retention       TenantRetentionInput
	RetentionErrors FieldErrors
	// Country is the default-country form as filled; CountryErrors its errors (keys: tenant,
	// default_country).
	Country       TenantCountryInput
	CountryErrors FieldErrors
}

// StaffItem is one staff user as listed.
type StaffItem struct {
	ID          string
	Email       string
	Role        string
	TenantName  string
	CreatedAt   time.Time
	LastLoginAt *time.Time
	Disabled    bool
	// CanToggle: the viewer may disable or re-enable this user (not themselves).
	CanToggle bool
}

// StaffInput is the create-staff form as filled: email, role, tenant (password is never re-shown).
type StaffInput struct {
	Email    string
	Role     string
	TenantID string
}

// StaffPage lists and creates staff users (GET/POST PathStaff).
type StaffPage struct {
	Layout Layout
	Staff  []StaffItem
	Form   StaffInput
	// Roles are the roles this user may assign; Tenants the tenants to choose from
	// (platform admin only; empty hides the tenant select).
	Roles     []string
	Tenants   []Option
	Errors    FieldErrors // keys: email, password, role, tenant
	CanManage bool
}

// PasswordPage changes the signed-in user's own password (GET/POST PathPassword).
type PasswordPage struct {
	Layout Layout
	// Required: the password was generated and must be changed before anything else.
	Required bool
	Errors   FieldErrors // keys: current, password, confirm
}

// ErrorPage is a generic error (any status) or, rendered with Forbidden, the 403 page.
type ErrorPage struct {
	Layout    Layout
	Status    int
	Message   string
	RequestID string
}
