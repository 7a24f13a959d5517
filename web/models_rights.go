package web

import "time"

// The retention bases (docs/API.md §10.7).
const (
	RetentionFromCreated        = "created"
	RetentionFromConsentsLapsed = "consents-lapsed"
)

// RetentionFromOptions lists what a retention can count from.
func RetentionFromOptions() []Option {
	return []Option{
		{Value: RetentionFromCreated, Label: "the record's creation"},
		{Value: RetentionFromConsentsLapsed, Label: "the moment its last consent lapsed"},
	}
}

// RetentionPhrase describes a retention setting: "2y from consents-lapsed", "" for none.
func RetentionPhrase(retention, from string) string {
	if retention == "" {
		return ""
	}
	if from == "" {
		from = RetentionFromCreated
	}
	return retention + " from " + from
}

// TenantRetentionInput is the default-retention form of the tenants page as filled.
type TenantRetentionInput struct {
	TenantID      string
	Retention     string
	RetentionFrom string
}

// TenantCountryInput is the default-country form as filled: tenant, default_country.
type TenantCountryInput struct {
	TenantID string
	Country  string
}

// ExpiringFilter is the re-permission list's filter: channel (email, phone), window, form.
type ExpiringFilter struct {
	Channel string
	Within  string
	FormID  string
}

// ExpiringRow is one person to ask again before their consent lapses.
type ExpiringRow struct {
	SubmissionID string
	Kind         string
	FormID       string
	Contact      string // the e-mail address or phone number of the channel
	FirstName    string
	Deadline     time.Time
}

// ExpiringPage is the re-permission list: one page of rows, a link to the next, and the CSV
// export of the whole list.
type ExpiringPage struct {
	Layout Layout
	Filter ExpiringFilter
	Forms  []Option
	Rows   []ExpiringRow
	// NextCursor is the cursor of the next page, "" on the last.
	NextCursor string
	Errors     FieldErrors // keys: channel, within, form, cursor
}

func tenantOptions(ts []TenantItem) []Option {
	out := make([]Option, len(ts))
	for i, t := range ts {
		out[i] = Option{Value: t.ID, Label: t.Name}
	}
	return out
}
