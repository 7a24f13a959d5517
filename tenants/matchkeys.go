package tenants

import "context"

// KeyingVersion is the version of how match keys are derived from a record: 2 tells belonging
// keys (own contact fields) from mention keys (custom fields), reads phone numbers with
// libphonenumber and e-mail addresses in NFC (docs/STORAGE.md, "Re-keying"). A store whose
// records were keyed by an earlier version is re-keyed at start.
const KeyingVersion = 2

// Rekeying is what re-keying one record writes: its contact phone number (nil: none) and its
// match keys.
type Rekeying struct {
	TenantID string
	Kind     Kind
	PublicID string
	Phone    *string
	Keys     []string
}

// MatchKeyRepo re-derives records' match keys: at start, after the way keys are derived
// changed (KeyingVersion), and in `consentforms rehash`, with a new HMAC key after the old one
// was lost, from the identifiers the records still hold.
type MatchKeyRepo interface {
	// Rekey replaces the contact phone number and the match keys of each record of batch, in the
	// record and in the index people are found through; ErrNotFound when one of them does not
	// exist (the embedded store then changes none of the batch).
	Rekey(ctx context.Context, batch []Rekeying) error
	// KeyingVersion returns the KeyingVersion the store's records were last re-keyed to (0:
	// never); SetKeyingVersion records one.
	KeyingVersion(ctx context.Context) (int, error)
	SetKeyingVersion(ctx context.Context, version int) error
}
