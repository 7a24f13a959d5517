package tenants

import (
	"slices"
	"time"
)

// Field types a form definition can declare. The first five are those of the first forms;
// the hosted page (docs/API.md §14) shows each as its input: e-mail, phone, select (one of
// Options), checkbox, textarea; number, date, boolean and choice render as number, date,
// checkbox and select.
const (
	FieldText     = "text"
	FieldNumber   = "number"
	FieldBoolean  = "boolean"
	FieldDate     = "date"
	FieldChoice   = "choice"
	FieldEmail    = "email"
	FieldPhone    = "phone"
	FieldSelect   = "select"
	FieldCheckbox = "checkbox"
	FieldTextarea = "textarea"
)

// fieldTypes lists the field types in the order forms offer them.
var fieldTypes = []string{FieldText, FieldEmail, FieldPhone, FieldTextarea, FieldSelect, FieldCheckbox, FieldNumber, FieldDate, FieldBoolean, FieldChoice}

// FieldTypes returns them afresh: a caller may change its copy.
func FieldTypes() []string { return slices.Clone(fieldTypes) }

// FieldDef declares one field of a form; Personal marks it as personal data to erase. A field
// named as a known submission key (email, phone_number, first_name, …) fills that key; any
// other is a custom field. Label, Required, Help and Options shape the hosted page.
type FieldDef struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Personal bool     `json:"personal"`
	Label    string   `json:"label,omitempty"`
	Required bool     `json:"required,omitempty"`
	Help     string   `json:"help,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// Form is a form configured for a tenant; submissions name it by FormID.
type Form struct {
	ID        string     `json:"id"`
	TenantID  string     `json:"tenantId"`
	FormID    string     `json:"formId"`
	Name      string     `json:"name"`
	Open      bool       `json:"open"`
	Fields    []FieldDef `json:"fields"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	// Retention is how long the form's records are kept before they are anonymised, as a
	// deadline interval ("2y", "P2Y"); "" keeps them. RetentionFrom is what it counts from.
	Retention     string `json:"retention,omitempty"`
	RetentionFrom string `json:"retentionFrom,omitempty"`
	// Language is the language the form speaks to the person (an ISO 639-1 code such as "de"):
	// its hosted page and its confirmation and withdrawal pages use it; "" is English.
	Language string `json:"language,omitempty"`
	// DoubleOptIn lists the general-contact channels (ChannelEmail, ChannelPhone) whose consent
	// a submission stores as pending until the person confirms it.
	DoubleOptIn []string `json:"doubleOptIn,omitempty"`
	// ConfirmWithin is how long a confirmation link stays valid, as an interval ("7d", "P7D");
	// "" is seven days (consent.ConfirmWithin reads it).
	ConfirmWithin string `json:"confirmWithin,omitempty"`
	// PrimaryFor and ContactFor are how long the consents given on the form's hosted page
	// last, as deadline intervals ("1y", "P2Y"); "" is DefaultPrimaryFor, DefaultContactFor.
	PrimaryFor string `json:"primaryFor,omitempty"`
	ContactFor string `json:"contactFor,omitempty"`
	// HostedPage serves the form's hosted page (/f/{tenant}/{form}); a form that a usable
	// publishable key names has one too, for the sites that frame it. Off by default: a page
	// that anyone may post to is opened by the organisation, not by creating a form.
	HostedPage bool `json:"hostedPage,omitempty"`
	// AllowNoJS lets the hosted page take a submission whose browser ran no script, without
	// the spam challenge: limited per client address and per form, and marked unchallenged.
	AllowNoJS bool `json:"allowNoJs,omitempty"`
	// ConsentSource is the consent_source the public ways in record as proof ("" is
	// "web:<form id>"); what a browser sends for it is ignored.
	ConsentSource string `json:"consentSource,omitempty"`
	// ThankYouMail sends a thank-you mail after each submission with an address, through the
	// tenant's mail server (docs/API.md §16).
	ThankYouMail bool `json:"thankYouMail,omitempty"`
	// RemindAfter is when, after a submission, a confirmation that still waits is mailed once
	// more (an interval, "3d"); "" is half the confirmation period, RemindNone none
	// (consent.RemindAt reads it).
	RemindAfter string `json:"remindAfter,omitempty"`
}

// RemindNone turns a form's confirmation reminder off.
const RemindNone = "none"

// Reminder is the form's reminder setting as staff read it: "none", an interval, or "half the
// confirmation period" for the default.
func (f Form) Reminder() string {
	if f.RemindAfter == "" {
		return "half the confirmation period"
	}
	return f.RemindAfter
}

// PublicSource is the consent_source a submission through a public way in records.
func (f Form) PublicSource() string {
	if f.ConsentSource != "" {
		return f.ConsentSource
	}
	return "web:" + f.FormID
}

// defaultPageFields are what a hosted page asks when its form declares no fields: a name and
// an e-mail address.
var defaultPageFields = []FieldDef{
	{Name: "first_name", Type: FieldText, Personal: true},
	{Name: "last_name", Type: FieldText, Personal: true},
	{Name: "email", Type: FieldEmail, Personal: true, Required: true},
}

// PageFields are the fields the form's hosted page asks: its own, or defaultPageFields.
func (f Form) PageFields() []FieldDef {
	if len(f.Fields) == 0 {
		return slices.Clone(defaultPageFields)
	}
	return f.Fields
}

// The consents' durations of a hosted form page whose form sets none.
const (
	DefaultPrimaryFor = "1y"
	DefaultContactFor = "2y"
)

// ConsentDeadlines are the intervals the form's hosted page sends with the consents it asks.
func (f Form) ConsentDeadlines() (primary, contact string) {
	primary, contact = f.PrimaryFor, f.ContactFor
	if primary == "" {
		primary = DefaultPrimaryFor
	}
	if contact == "" {
		contact = DefaultContactFor
	}
	return primary, contact
}

// DefaultConfirmWithin is a form's confirmation period when it sets none.
const DefaultConfirmWithin = "7d"

// ConfirmPeriod is the form's confirmation period as set, or the default it stands for.
func (f Form) ConfirmPeriod() string {
	if f.ConfirmWithin == "" {
		return DefaultConfirmWithin
	}
	return f.ConfirmWithin
}

// The general-contact channels a form can ask double opt-in for.
const (
	ChannelEmail = "email"
	ChannelPhone = "phone"
)

// channels lists the general-contact channels in the order forms show them.
var channels = []string{ChannelEmail, ChannelPhone}

// Channels returns them afresh: a caller may change its copy.
func Channels() []string { return slices.Clone(channels) }

// RequiresConfirmation reports whether the form asks double opt-in for channel.
func (f Form) RequiresConfirmation(channel string) bool {
	for _, c := range f.DoubleOptIn {
		if c == channel {
			return true
		}
	}
	return false
}

// FormKey is the storage key of a form.
func FormKey(tenantID, formID string) string { return tenantID + ":" + formID }

// PersonalFields returns the set of custom fields the form declares personal.
func (f Form) PersonalFields() map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Fields {
		if d.Personal {
			out[d.Name] = true
		}
	}
	return out
}

// MaxFormIDLength is the longest form id (and submission id).
const MaxFormIDLength = 128

// ValidID reports whether id is a usable form or submission id: 1–128 characters of
// A–Z a–z 0–9 . _ : -, so ids stay safe in URLs and storage keys. It is the one definition of
// that alphabet.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxFormIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// ValidFormID reports whether id is usable as a form id (ValidID).
func ValidFormID(id string) bool { return ValidID(id) }
