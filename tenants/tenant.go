package tenants

import "time"

// DefaultRateLimit is the requests per second allowed per API key when a tenant sets none.
const DefaultRateLimit = 100

// Tenant statuses.
const (
	TenantActive    = "active"
	TenantSuspended = "suspended"
)

// Tenant is an organisation using the service; every other record belongs to one.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	RateLimit int       `json:"rateLimit"`
	CreatedAt time.Time `json:"createdAt"`
	// SendGridPublicKey is the base64 DER ECDSA key that verifies SendGrid's signed event webhook.
	SendGridPublicKey string `json:"sendgridPublicKey,omitempty"`
	// Retention and RetentionFrom are the default retention of the tenant's records that
	// belong to no form (canvassing, phone calls); see Form.Retention.
	Retention     string `json:"retention,omitempty"`
	RetentionFrom string `json:"retentionFrom,omitempty"`
	// DefaultCountry (ISO 3166 alpha-2, "" none) reads the national phone numbers volunteers
	// type into the records of section 6, and in custom fields (docs/API.md §3.4).
	DefaultCountry string `json:"defaultCountry,omitempty"`
	// SMSStopWords are the tenant's own SMS opt-out words, besides the industry keywords and
	// those of its languages (docs/API.md §11), folded as the keyword rule compares them.
	SMSStopWords []string `json:"smsStopWords,omitempty"`
	// Identity is the organisation as the person's pages and the receipts name it.
	Identity Identity `json:"identity,omitzero"`
}

// Identity is who the organisation is to the people it collects consent from: its legal
// name, the contact address for data protection, its postal address, its privacy notice and
// the jurisdiction it answers to (docs/API.md §17). The contact is the organisation's, never
// a supporter's.
type Identity struct {
	LegalName    string `json:"legalName,omitempty"`
	ContactEmail string `json:"contactEmail,omitempty"`
	Address      string `json:"address,omitempty"`
	PrivacyURL   string `json:"privacyUrl,omitempty"`
	// Jurisdiction is an ISO 3166 alpha-2 code; "" falls back to the default country.
	Jurisdiction string `json:"jurisdiction,omitempty"`
}

// DisplayName is the name the person's pages show: the legal name, else the tenant's name.
func (t Tenant) DisplayName() string {
	if t.Identity.LegalName != "" {
		return t.Identity.LegalName
	}
	return t.Name
}

// JurisdictionCode is the organisation's jurisdiction, else its default country ("" none).
func (t Tenant) JurisdictionCode() string {
	if t.Identity.Jurisdiction != "" {
		return t.Identity.Jurisdiction
	}
	return t.DefaultCountry
}

// Active reports whether the tenant's keys may be used.
func (t Tenant) Active() bool { return t.Status != TenantSuspended }

// Limit is the tenant's per-key rate limit in requests per second.
func (t Tenant) Limit() int {
	if t.RateLimit <= 0 {
		return DefaultRateLimit
	}
	return t.RateLimit
}
