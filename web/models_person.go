package web

import "time"

// PersonRecord is one record of a person found by e-mail or phone, of any kind.
type PersonRecord struct {
	Kind      string // one of the Kind constants
	ID        string
	FormID    string
	CreatedAt time.Time
	// The consent statuses read at now; "" for a kind without consents (phone call tasks).
	PrimaryPurpose      string
	GeneralContactEmail string
	GeneralContactPhone string
	AnonymisedAt        *time.Time
}

// FindPersonPage finds one person's records of every kind by an exact e-mail address and/or
// phone number (POST PathFindPerson with email, phone): the search term travels in the body,
// never in a URL.
type FindPersonPage struct {
	Layout Layout
	Email  string // as typed
	Phone  string // as typed
	Errors FieldErrors
	// Searched is set when a valid search ran: Records and Counts are what it found.
	Searched bool
	Records  []PersonRecord // newest first, at most FindPersonShown
	Counts   RecordCounts   // every record found, listed or not
	// Mentions are the records of others that name the person in a custom field (newest
	// first, at most FindPersonShown); MentionCount counts them all. They are not the
	// person's: consent reads and unsubscribes never reach them, erasure removes only the mention.
	Mentions     []PersonRecord
	MentionCount int
	// CanAnonymise offers the anonymisation of the person (its preview step).
	CanAnonymise bool
}

// FindPersonShown bounds the records a person search lists; the counts cover them all.
const FindPersonShown = 200

// Unlisted is how many records found are not listed.
func (p FindPersonPage) Unlisted() int { return p.Counts.Total() - len(p.Records) }
