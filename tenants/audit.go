package tenants

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// Audit actions (CONTRACT.md §9).
const (
	ActionSubmissionAccepted = "submission.accepted"
	ActionRecordAccepted     = "record.accepted"
	ActionConsentGranted     = "consent.granted"
	ActionConsentRevoked     = "consent.revoked"
	ActionConsentExpired     = "consent.expired"
	ActionGDPRAnonymised     = "gdpr.anonymised"
	ActionAPIKeyIssued       = "apikey.issued"
	ActionAPIKeyRevoked      = "apikey.revoked"
	ActionFormChanged        = "form.changed"
	ActionStaffLogin         = "staff.login"
	ActionStaffCreated       = "staff.created"
	ActionTenantCreated      = "tenant.created"
	ActionTenantChanged      = "tenant.changed"
	ActionWebhookChanged     = "webhook.changed"
)

// ActorSystem is the actor of background jobs.
const ActorSystem = "system"

// AuditEntry is one append-only audit record. It never holds an e-mail address, phone
// number, name or address: Subject is at most a keyed hash of the identifiers.
type AuditEntry struct {
	ID        string         `bson:"_id"`
	Time      time.Time      `bson:"time"`
	TenantID  string         `bson:"tenantId"`
	Actor     string         `bson:"actor"`
	Action    string         `bson:"action"`
	RecordIDs []string       `bson:"recordIds,omitempty"`
	Counts    map[string]int `bson:"counts,omitempty"`
	Subject   string         `bson:"subject,omitempty"`
	Detail    string         `bson:"detail,omitempty"`
	RequestID string         `bson:"requestId,omitempty"`
}

// Hasher turns identifiers into keyed hashes (HMAC-SHA-256 with a server secret), so
// that lookups and audit entries can correlate one person without holding the identifier.
type Hasher struct{ key []byte }

// NewHasher returns a Hasher with the given secret.
func NewHasher(secret []byte) Hasher { return Hasher{key: secret} }

// Hash returns the keyed hash of a normalised identifier in a tenant, namespaced by kind
// ("e" for e-mail, "p" for phone).
func (h Hasher) Hash(tenantID, kind, normalised string) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(tenantID + "\x00" + kind + "\x00" + normalised))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
