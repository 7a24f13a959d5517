package tenants

import (
	"slices"
	"time"
)

// Kind names one of the four record types that hold a person's data.
type Kind string

// The record types anonymisation covers (docs/API.md §0.3).
const (
	KindFormSubmission Kind = "formSubmission"
	KindDigitisation   Kind = "digitisationSubmission"
	KindCanvassing     Kind = "canvassingSubmission"
	KindPhoneCallTask  Kind = "phoneCallTask"
)

// kinds lists every record kind in a stable order.
var kinds = []Kind{KindFormSubmission, KindDigitisation, KindCanvassing, KindPhoneCallTask}

// Kinds returns them afresh: a caller may change its copy.
func Kinds() []Kind { return slices.Clone(kinds) }

// Contact is the personal contact data of a record. A nil field is absent or removed.
type Contact struct {
	Email       *string `json:"email"`
	PhoneNumber *string `json:"phoneNumber"`
	FirstName   *string `json:"firstName"`
	LastName    *string `json:"lastName"`
	NamePrefix  *string `json:"namePrefix"`
}

// Address is the structured postal address of a record.
type Address struct {
	Street      *string `json:"street"`
	HouseNumber *string `json:"houseNumber"`
	City        *string `json:"city"`
	Postcode    *string `json:"postcode"`
}

// ConsentStatus is the state of one consent (docs/API.md §4.2).
type ConsentStatus string

// The consent states.
const (
	StatusGranted    ConsentStatus = "granted"
	StatusExpired    ConsentStatus = "expired"
	StatusRevoked    ConsentStatus = "revoked"
	StatusNotGranted ConsentStatus = "not_granted"
	// StatusPending is a general-contact consent given on a form with double opt-in and not
	// yet confirmed (docs/API.md §13): it reads as not granted everywhere but in the record
	// read (Consent.DetailAt), and lapses at ConfirmBy.
	StatusPending ConsentStatus = "pending"
	// StatusLapsed is a filter of record lists and counts only, never a consent's status: a
	// pending consent whose confirmation period is over (it reads not granted).
	StatusLapsed ConsentStatus = "lapsed"
)

// Consent is one consent of a record with its lifecycle times and proof.
type Consent struct {
	// Status is the stored status; read it through StatusAt, which applies the deadline.
	Status    ConsentStatus `json:"status"`
	GrantedAt *time.Time    `json:"grantedAt"`
	Deadline  *time.Time    `json:"deadline"`
	RevokedAt *time.Time    `json:"revokedAt"`
	// RevokedBy names what revoked it: a provider name, "api" or "admin".
	RevokedBy string `json:"revokedBy,omitempty"`
	// Proof of consent as sent with the submission (consent_source, consent_ip_address, consent_timestamp).
	Source    *string `json:"source,omitempty"`
	IPAddress *string `json:"ipAddress,omitempty"`
	Timestamp *string `json:"timestamp,omitempty"`
	// Text names the notice version the consent was given under (docs/API.md §12); nil when
	// the form had no text for it.
	Text *TextRef `json:"text,omitempty"`
	// ConfirmBy is when a pending consent's confirmation link lapses (the form's confirmation
	// period after the submission); it stays after confirmation as the token's end.
	ConfirmBy *time.Time `json:"confirmBy,omitempty"`
	// Confirmation is the proof of a double opt-in: when, from where and with what the person
	// confirmed (nil: not confirmed).
	Confirmation *Confirmation `json:"confirmation,omitempty"`
}

// Confirmation is the proof of a double opt-in confirmation. IPAddress and UserAgent are
// personal data: erasure removes them.
type Confirmation struct {
	At        time.Time `json:"at"`
	IPAddress *string   `json:"ipAddress"`
	UserAgent *string   `json:"userAgent"`
}

// DetailAt is the consent's status at now as the record read shows it: StatusAt, except that
// a pending consent whose confirmation has not lapsed reads pending.
func (c Consent) DetailAt(now time.Time) ConsentStatus {
	if c.PendingAt(now) {
		return StatusPending
	}
	return c.StatusAt(now)
}

// PendingAt reports whether the consent awaits a confirmation at now: stored pending and its
// confirmation period not over.
func (c Consent) PendingAt(now time.Time) bool {
	return c.Status == StatusPending && c.ConfirmBy != nil && now.Before(*c.ConfirmBy)
}

// StatusAt is the consent's status at now: a granted consent whose deadline has passed reads
// expired; a pending one reads not granted, lapsed or not.
func (c Consent) StatusAt(now time.Time) ConsentStatus {
	switch c.Status {
	case StatusGranted:
		if c.Deadline != nil && !now.Before(*c.Deadline) {
			return StatusExpired
		}
		return StatusGranted
	case StatusExpired, StatusRevoked:
		return c.Status
	default:
		return StatusNotGranted
	}
}

// Consents groups the three consents a record can carry.
type Consents struct {
	PrimaryPurpose      Consent `json:"primaryPurpose"`
	GeneralContactEmail Consent `json:"generalContactEmail"`
	GeneralContactPhone Consent `json:"generalContactPhone"`
}

// Record is a stored record of any of the four kinds. Payload holds custom fields as
// JSON-like values (map[string]any, []any, string, float64, int32, int64, bool, nil);
// Fields holds the kind's own known fields (document_ref, canvasser_id, outcome, notes, ...).
// MatchKeys are the keyed hashes of every e-mail address and phone number the record holds:
// a person's records are found through them. The JSON form is the stored and exported one.
type Record struct {
	ID           string         `json:"id"`
	TenantID     string         `json:"tenantId"`
	Kind         Kind           `json:"kind"`
	PublicID     string         `json:"publicId"`
	FormID       string         `json:"formId,omitempty"`
	CreatedAt    time.Time      `json:"createdAt"`
	Contact      Contact        `json:"contact"`
	Address      Address        `json:"address"`
	Consents     Consents       `json:"consents"`
	Payload      map[string]any `json:"payload,omitempty"`
	Fields       map[string]any `json:"fields,omitempty"`
	MatchKeys    []string       `json:"matchKeys,omitempty"`
	AnonymisedAt *time.Time     `json:"anonymisedAt,omitempty"`
}

// FieldUnchallenged is the own field of a record a public way in took without a spam
// challenge (a hosted page's no-script fallback, docs/API.md §14).
const FieldUnchallenged = "unchallenged"

// Unchallenged reports whether the record came in without a spam challenge.
func (r Record) Unchallenged() bool {
	v, _ := r.Fields[FieldUnchallenged].(bool)
	return v
}

// NewRecord starts a record of kind for tenantID: the one place a record gets its ids. publicID
// is the client's idempotency key (a submission_id); "" mints a fresh one with NewID, so call it
// once per record. ID is the storage key (RecordID).
func NewRecord(tenantID string, kind Kind, publicID string, createdAt time.Time) Record {
	if publicID == "" {
		publicID = NewID("")
	}
	return Record{ID: RecordID(tenantID, kind, publicID), TenantID: tenantID, Kind: kind, PublicID: publicID, CreatedAt: createdAt}
}

// RecordID is the storage key of a record: tenant and public id, so that lookups are by _id only.
func RecordID(tenantID string, kind Kind, publicID string) string {
	return tenantID + ":" + string(kind) + ":" + publicID
}
