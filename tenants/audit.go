package tenants

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// Audit actions (docs/API.md §9).
const (
	// ActionSubmissionAccepted and ActionRecordAccepted are no longer written: a stored record
	// writes one entry, ActionConsentGranted or ActionRecordCreated. Entries written before
	// keep them, and the log still shows and filters them.
	ActionSubmissionAccepted = "submission.accepted"
	ActionRecordAccepted     = "record.accepted"
	// ActionRecordCreated: a record was stored that grants no consent.
	ActionRecordCreated  = "record.created"
	ActionConsentGranted = "consent.granted"
	ActionConsentRevoked = "consent.revoked"
	ActionConsentExpired = "consent.expired"
	// ActionConfirmationResent: staff had a pending confirmation mailed again.
	ActionConfirmationResent = "consent.confirmation_resent"
	ActionGDPRAnonymised     = "gdpr.anonymised"
	// ActionGDPRMentionsRemoved: an erasure removed the values naming the person from records
	// of others (docs/API.md §5.1); the entry names those records and counts them.
	ActionGDPRMentionsRemoved = "gdpr.mentions_removed"
	ActionAPIKeyIssued        = "apikey.issued"
	ActionAPIKeyRevoked       = "apikey.revoked"
	ActionFormChanged         = "form.changed"
	ActionStaffLogin          = "staff.login"
	ActionStaffCreated        = "staff.created"
	ActionStaffDisabled       = "staff.disabled"
	ActionStaffEnabled        = "staff.enabled"
	ActionStaffPassword       = "staff.password_changed"
	ActionTenantCreated       = "tenant.created"
	ActionTenantChanged       = "tenant.changed"
	ActionWebhookChanged      = "webhook.changed"
	// ActionAuditAcknowledged: an operator acknowledged a break of the tenant's audit chain.
	ActionAuditAcknowledged = "audit.acknowledged"
)

// ActorSystem is the actor of background jobs.
const ActorSystem = "system"

// AuditEntry is one append-only audit record. It never holds an e-mail address, phone
// number, name or address: Subject is at most a keyed hash of the identifiers.
type AuditEntry struct {
	ID        string         `json:"id"`
	Time      time.Time      `json:"time"`
	TenantID  string         `json:"tenantId"`
	Actor     string         `json:"actor"`
	Action    string         `json:"action"`
	RecordIDs []string       `json:"recordIds,omitempty"`
	Counts    map[string]int `json:"counts,omitempty"`
	Subject   string         `json:"subject,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	RequestID string         `json:"requestId,omitempty"`
	// Chain, Prev and Hash place the entry in its tenant's hash chain (auditchain.go); the
	// store sets them when it appends the entry.
	Chain int64  `json:"chain,omitempty"`
	Prev  string `json:"prev,omitempty"`
	Hash  string `json:"hash,omitempty"`
}

// NewAuditID returns a fresh audit entry id: the time in nanoseconds, then random bits, in
// hex, so that ids sort in order of creation on every store.
func NewAuditID(now time.Time) string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixNano()))
	_, _ = rand.Read(b[8:])
	return hex.EncodeToString(b[:])
}

// Hasher turns identifiers into keyed hashes (HMAC-SHA-256 with a server secret), so
// that lookups and audit entries can correlate one person without holding the identifier.
type Hasher struct{ mac MAC }

// NewHasher returns a Hasher with the given secret.
func NewHasher(secret []byte) Hasher { return Hasher{mac: NewMAC(secret)} }

// Hash returns the keyed hash of a normalised identifier in a tenant, namespaced by kind
// ("e" for e-mail, "p" for phone; "me" and "mp" for the same identifiers mentioned in another
// person's record, docs/STORAGE.md).
func (h Hasher) Hash(tenantID, kind, normalised string) string {
	return base64.RawURLEncoding.EncodeToString(h.mac.Sum([]byte(tenantID + "\x00" + kind + "\x00" + normalised)))
}
