package tenants

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// An audit entry's place in its tenant's hash chain (docs/API.md §9.1): Chain numbers the
// tenant's entries from 1 in order of append, Prev is the Hash of the entry before it ("" for
// the first) and Hash the SHA-256 of the entry's canonical content, Chain and Prev included.
// Changing, removing or reordering an entry breaks the chain at that entry or the next.

// chainContent is the canonical content of an entry: fixed field order, the time in Unix
// milliseconds (what both stores keep), empty fields left out.
type chainContent struct {
	Chain     int64          `json:"chain"`
	Prev      string         `json:"prev"`
	ID        string         `json:"id"`
	Time      int64          `json:"time"`
	TenantID  string         `json:"tenantId"`
	Actor     string         `json:"actor"`
	Action    string         `json:"action"`
	RecordIDs []string       `json:"recordIds,omitempty"`
	Counts    map[string]int `json:"counts,omitempty"`
	Subject   string         `json:"subject,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	RequestID string         `json:"requestId,omitempty"`
}

// ChainHash returns the hex SHA-256 of e's canonical content (its Hash field excluded).
func ChainHash(e AuditEntry) string {
	b, _ := json.Marshal(chainContent{Chain: e.Chain, Prev: e.Prev, ID: e.ID, Time: e.Time.UnixMilli(), TenantID: e.TenantID,
		Actor: e.Actor, Action: e.Action, RecordIDs: e.RecordIDs, Counts: e.Counts, Subject: e.Subject, Detail: e.Detail, RequestID: e.RequestID})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ChainHead is the last entry of a tenant's chain: its position and hash (0 and "" before the
// first).
type ChainHead struct {
	Chain int64
	Hash  string
}

// Link places e after head and returns the new head. An entry without an id gets one first.
func (head ChainHead) Link(e *AuditEntry) ChainHead {
	if e.ID == "" {
		e.ID = NewAuditID(e.Time)
	}
	e.Chain, e.Prev = head.Chain+1, head.Hash
	e.Hash = ChainHash(*e)
	return ChainHead{Chain: e.Chain, Hash: e.Hash}
}

// ChainVerification is the result of walking one tenant's chain, kept in the store: the
// admin audit page shows the last one, and the next walk checks that the chain still reaches
// the head it saw (an entry removed from the end leaves no gap to find).
type ChainVerification struct {
	TenantID   string    `json:"tenantId"`
	VerifiedAt time.Time `json:"verifiedAt"`
	Entries    int64     `json:"entries"`
	// Head is the last entry verified: its position, hash, id and time.
	Head   ChainHead `json:"-"`
	LastID string    `json:"lastId,omitempty"`
	UpTo   time.Time `json:"upTo"`
	OK     bool      `json:"ok"`
	// BrokenID is the first entry that does not fit the chain, when not OK.
	BrokenID string `json:"brokenId,omitempty"`
}

// AuditChainRepo reads the tenants' hash chains and keeps the verification results.
type AuditChainRepo interface {
	// ChainTenants lists the ids of the tenants with a chained entry, ascending.
	ChainTenants(ctx context.Context) ([]string, error)
	// EachChained streams the tenant's chained entries to fn in chain order.
	EachChained(ctx context.Context, tenantID string, fn func(AuditEntry) error) error
	SaveVerification(ctx context.Context, v ChainVerification) error
	// LastVerification returns the tenant's last verification; ErrNotFound when none.
	LastVerification(ctx context.Context, tenantID string) (ChainVerification, error)
	// Verifications lists every tenant's last verification.
	Verifications(ctx context.Context) ([]ChainVerification, error)
	// Acknowledgments lists the tenant's audit.acknowledged entries: the breaks of its chain
	// an operator acknowledged (AcknowledgeBreak).
	Acknowledgments(ctx context.Context, tenantID string) ([]AuditEntry, error)
}

// ChainWalk checks entries handed to it in chain order against the chain rules.
type ChainWalk struct {
	// Expect is the head a previous verification saw: the entry at its position must still
	// have its hash (an end cut off and written anew is caught here).
	Expect ChainHead
	// Acknowledged are the breaks an operator acknowledged, by place and by the entry named:
	// the walk goes on past them from the entry it finds there.
	Acknowledged Acknowledged
	head         ChainHead
	last         AuditEntry
	n            int64
	brokenID     string
	brokenAt     int64
}

// Acknowledged are a tenant's acknowledged breaks (audit.acknowledged entries): the places
// of the chain (the first place that did not fit) and the entries the reports named.
type Acknowledged struct {
	Places  map[int64]bool
	Entries map[string]bool
}

// AckPlace is the Counts key of an audit.acknowledged entry holding the acknowledged place.
const AckPlace = "place"

// acknowledged reads the breaks acknowledged by entries.
func acknowledged(entries []AuditEntry) Acknowledged {
	a := Acknowledged{Places: map[int64]bool{}, Entries: map[string]bool{}}
	for _, e := range entries {
		if p, ok := e.Counts[AckPlace]; ok {
			a.Places[int64(p)] = true
		}
		for _, id := range e.RecordIDs {
			a.Entries[id] = true
		}
	}
	return a
}

// Next checks e; it returns false once the chain is broken (BrokenID says where). A break
// an operator acknowledged is passed over: the walk continues from e.
func (w *ChainWalk) Next(e AuditEntry) bool {
	if w.brokenID != "" {
		return false
	}
	if e.Chain != w.head.Chain+1 || e.Prev != w.head.Hash || ChainHash(e) != e.Hash ||
		(e.Chain == w.Expect.Chain && e.Hash != w.Expect.Hash) {
		if !w.Acknowledged.Places[w.head.Chain+1] && !w.Acknowledged.Entries[e.ID] {
			w.brokenID, w.brokenAt = e.ID, w.head.Chain+1
			return false
		}
	}
	w.head, w.last = ChainHead{Chain: e.Chain, Hash: e.Hash}, e
	w.n++
	return true
}

// Result is the verification of the walk at now, checked against the tenant's previous one
// (nil when none): a chain that no longer reaches the head verified before lost its end, and
// a break reported before stays reported, whatever this walk finds, until an operator
// acknowledges it (a removed end leaves nothing for a later walk to find).
func (w *ChainWalk) Result(tenantID string, now time.Time, prev *ChainVerification) ChainVerification {
	v := ChainVerification{TenantID: tenantID, VerifiedAt: now, Entries: w.n, Head: w.head, LastID: w.last.ID,
		UpTo: w.last.Time, OK: w.brokenID == "", BrokenID: w.brokenID}
	if v.OK && prev != nil && prev.OK && prev.Head.Chain > w.head.Chain &&
		!w.Acknowledged.Places[w.head.Chain+1] && !w.Acknowledged.Entries[prev.LastID] {
		// Entries after the last one found were verified before: the chain lost its end.
		v.OK, v.BrokenID = false, prev.LastID
	}
	if prev != nil && !prev.OK && !w.Acknowledged.Entries[prev.BrokenID] {
		// The break reported stays the one reported (on MongoDB an end removed is named by the
		// link until entries follow it, then by the first entry after the gap); another shows
		// once it is acknowledged.
		v.OK, v.BrokenID = false, prev.BrokenID
	}
	if !v.OK && prev != nil {
		// Show how far the chain was last known good.
		v.Head, v.LastID, v.UpTo = prev.Head, prev.LastID, prev.UpTo
	}
	return v
}

// place is where the walk's chain stopped fitting: the place of its break, or the place after
// its end (an end removed).
func (w *ChainWalk) place() int64 {
	if w.brokenID != "" {
		return w.brokenAt
	}
	return w.head.Chain + 1
}
