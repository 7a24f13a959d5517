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
}

// ChainWalk checks entries handed to it in chain order against the chain rules.
type ChainWalk struct {
	// Expect is the head a previous verification saw: the entry at its position must still
	// have its hash (an end cut off and written anew is caught here).
	Expect   ChainHead
	head     ChainHead
	last     AuditEntry
	n        int64
	brokenID string
}

// Next checks e; it returns false once the chain is broken (BrokenID says where).
func (w *ChainWalk) Next(e AuditEntry) bool {
	if w.brokenID != "" {
		return false
	}
	if e.Chain != w.head.Chain+1 || e.Prev != w.head.Hash || ChainHash(e) != e.Hash ||
		(e.Chain == w.Expect.Chain && e.Hash != w.Expect.Hash) {
		w.brokenID = e.ID
		return false
	}
	w.head, w.last = ChainHead{Chain: e.Chain, Hash: e.Hash}, e
	w.n++
	return true
}

// Result is the verification of the walk at now, checked against the tenant's previous one
// (nil when none): a chain that no longer reaches the head verified before lost its end.
func (w *ChainWalk) Result(tenantID string, now time.Time, prev *ChainVerification) ChainVerification {
	v := ChainVerification{TenantID: tenantID, VerifiedAt: now, Entries: w.n, Head: w.head, LastID: w.last.ID,
		UpTo: w.last.Time, OK: w.brokenID == "", BrokenID: w.brokenID}
	if v.OK && prev != nil && prev.OK && prev.Head.Chain > w.head.Chain {
		// Entries after the last one found were verified before: the chain lost its end.
		v.OK, v.BrokenID = false, prev.LastID
	}
	if !v.OK && prev != nil && prev.OK {
		// Show how far the chain was last known good.
		v.Head, v.LastID, v.UpTo = prev.Head, prev.LastID, prev.UpTo
	}
	return v
}
