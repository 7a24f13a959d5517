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
	ID        string    `bson:"_id" json:"id"`
	Name      string    `bson:"name" json:"name"`
	Status    string    `bson:"status" json:"status"`
	RateLimit int       `bson:"rateLimit" json:"rateLimit"`
	CreatedAt time.Time `bson:"createdAt" json:"createdAt"`
	// SendGridPublicKey is the base64 DER ECDSA key that verifies SendGrid's signed event webhook.
	SendGridPublicKey string `bson:"sendgridPublicKey,omitempty" json:"sendgridPublicKey,omitempty"`
	// Retention and RetentionFrom are the default retention of the tenant's records that
	// belong to no form (canvassing, phone calls); see Form.Retention.
	Retention     string `bson:"retention,omitempty" json:"retention,omitempty"`
	RetentionFrom string `bson:"retentionFrom,omitempty" json:"retentionFrom,omitempty"`
	// DefaultCountry (ISO 3166 alpha-2, "" none) reads the national phone numbers volunteers
	// type into the records of section 6, and in custom fields (docs/API.md §3.4).
	DefaultCountry string `bson:"defaultCountry,omitempty" json:"defaultCountry,omitempty"`
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
