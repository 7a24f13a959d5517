package mongo

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The audit chain on MongoDB. Several instances append and there are no multi-document
// transactions. Each append claims its places in the tenant's chain with a link document
// (collection auditlinks, _id "<tenant>:<first place>") that holds the places it takes, the
// hash of its last entry and, until they are stored, the entries themselves:
//
//  1. take the head: the link this process inserted last, or else the tenant's latest link,
//     whose entries, when it still holds them, are inserted first (a no-op when they are
//     there: same ids);
//  2. link the new entries after the head and insert the link claiming the next place; an
//     insert is atomic on its _id on MongoDB and FerretDB alike (a conditional update is
//     not atomic on FerretDB), so of two appends racing for a place one gets a duplicate key
//     and starts again at 1;
//  3. insert the entries, then drop them from the link.
//
// Places are claimed in ranges that follow each other, so a head is always where a link ends
// and the next link starts right after it. A crash after 2 leaves a link holding entries that
// are not stored; the next append to the tenant (step 1) or audit verify stores them, so the
// chain is whole again: nothing is lost and nothing forks. Within a process, appends of one
// tenant wait for each other (a striped lock), so claims collide only when instances race.
// docs/STORAGE.md has the same in prose.
type chains struct {
	links *mongo.Collection
	audit *Audit

	stripes [64]sync.Mutex
	mu      sync.Mutex
	// mine are the heads this process linked and completed (step 3 done), per tenant.
	mine map[string]tenants.ChainHead
}

// linkDoc claims the places First..Last of a tenant's chain.
type linkDoc struct {
	ID       string     `bson:"_id"`
	TenantID string     `bson:"tenantId"`
	First    int64      `bson:"first"`
	Last     int64      `bson:"last"`
	Hash     string     `bson:"hash"`
	LastID   string     `bson:"lastId"` // the id of the entry at Last
	Entries  []auditDoc `bson:"entries,omitempty"`
}

func linkID(tenantID string, first int64) string {
	return tenantID + ":" + strconv.FormatInt(first, 10)
}

// maxCASTries bounds the retries of one append while other instances keep winning.
const maxCASTries = 100

func (c *chains) lock(tenantID string) func() {
	h := fnv.New32a()
	h.Write([]byte(tenantID))
	m := &c.stripes[h.Sum32()%uint32(len(c.stripes))]
	m.Lock()
	return m.Unlock
}

// append adds entries, all of tenantID, at the end of its chain, and returns how many it
// added. Entries sharing an id take one place (a submission and its repeat in one batch). An
// entry that may exist already (check[i]: ids derived from what they record) is looked up
// after the head is complete, on every try: whoever appended it before, this process or
// another instance racing for the same place, it has its place in the chain and is left out,
// so a repeated id never claims a place that its insert then leaves empty.
func (c *chains) append(ctx context.Context, tenantID string, entries []auditDoc, check []bool) (int, error) {
	defer c.lock(tenantID)()
	entries, check = distinct(entries, check)
	for range maxCASTries {
		head, err := c.head(ctx, tenantID)
		if err != nil {
			return 0, err
		}
		todo, err := c.leaveOutExisting(ctx, tenantID, entries, check)
		if err != nil || len(todo) == 0 {
			return 0, err
		}
		docs := make([]any, len(todo))
		link := linkDoc{ID: linkID(tenantID, head.Chain+1), TenantID: tenantID, First: head.Chain + 1, Entries: make([]auditDoc, len(todo))}
		next := head
		for i, d := range todo {
			next = d.linkTo(next)
			docs[i], link.Entries[i] = d, d
		}
		link.Last, link.Hash, link.LastID = next.Chain, next.Hash, todo[len(todo)-1].ID
		if _, err := c.links.InsertOne(ctx, link); mongo.IsDuplicateKeyError(err) {
			c.forget(tenantID)
			continue
		} else if err != nil {
			c.forget(tenantID) // the link may be stored: the next append reads it
			return 0, translate("link audit entries", err)
		}
		if err := c.insert(ctx, docs); err != nil {
			c.forget(tenantID) // the next append completes it
			return 0, err
		}
		c.mu.Lock()
		c.mine[tenantID] = next
		c.mu.Unlock()
		// The entries are stored: the link need not hold them any more. Should this fail,
		// they are stored again, as a no-op, by whoever reads the link next.
		_, _ = c.links.UpdateOne(ctx, bson.D{{Key: "_id", Value: link.ID}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "entries", Value: ""}}}})
		return len(todo), nil
	}
	return 0, fmt.Errorf("append audit: the chain of a tenant kept moving: %w", tenants.ErrUnavailable)
}

// distinct keeps the first of the entries sharing an id (one to check when any of them is).
func distinct(entries []auditDoc, check []bool) ([]auditDoc, []bool) {
	seen := make(map[string]int, len(entries))
	outE, outC := entries[:0:0], check[:0:0]
	for i, e := range entries {
		ck := check == nil || check[i]
		if j, dup := seen[e.ID]; dup && e.ID != "" {
			outC[j] = outC[j] || ck
			continue
		}
		seen[e.ID] = len(outE)
		outE, outC = append(outE, e), append(outC, ck)
	}
	return outE, outC
}

// leaveOutExisting drops the entries to check whose ids are stored.
func (c *chains) leaveOutExisting(ctx context.Context, tenantID string, entries []auditDoc, check []bool) ([]auditDoc, error) {
	var ids []string
	for i, e := range entries {
		if e.ID != "" && check[i] {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return entries, nil
	}
	have := map[string]bool{}
	err := eachDoc(ctx, c.audit.c, "find audit entries", bson.D{{Key: "tenantId", Value: tenantID}, {Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}},
		options.Find().SetProjection(bson.D{asc("_id")}), func(d struct {
			ID string `bson:"_id"`
		}) error {
			have[d.ID] = true
			return nil
		})
	if err != nil || len(have) == 0 {
		return entries, err
	}
	out := entries[:0:0]
	for _, e := range entries {
		if !have[e.ID] {
			out = append(out, e)
		}
	}
	return out, nil
}

// head returns the tenant's chain head with its pending entries stored: the one this process
// wrote last, or the stored one after completing it.
func (c *chains) head(ctx context.Context, tenantID string) (tenants.ChainHead, error) {
	c.mu.Lock()
	h, ok := c.mine[tenantID]
	c.mu.Unlock()
	if ok {
		return h, nil
	}
	head, _, err := c.complete(ctx, tenantID)
	return head, err
}

// complete reads the tenant's latest link and stores the entries it still holds. It returns
// the head and the id of the entry there.
func (c *chains) complete(ctx context.Context, tenantID string) (tenants.ChainHead, string, error) {
	var d linkDoc
	err := c.links.FindOne(ctx, bson.D{{Key: "tenantId", Value: tenantID}}, options.FindOne().SetSort(bson.D{asc("tenantId"), desc("first")})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return tenants.ChainHead{}, "", nil
	}
	if err != nil {
		return tenants.ChainHead{}, "", translate("read audit chain", err)
	}
	docs := make([]any, len(d.Entries))
	for i, p := range d.Entries {
		docs[i] = p
	}
	return tenants.ChainHead{Chain: d.Last, Hash: d.Hash}, d.LastID, c.insert(ctx, docs)
}

// insert stores entries; those whose id exists are skipped.
func (c *chains) insert(ctx context.Context, docs []any) error {
	if len(docs) == 0 {
		return nil
	}
	_, err := c.audit.c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return nil
	}
	byIndex, ok := writeErrors(err)
	if !ok {
		return translate("append audit", err)
	}
	for _, code := range byIndex {
		if code != codeDuplicateKey {
			return writeError("append audit", code)
		}
	}
	return nil
}

func (c *chains) forget(tenantID string) {
	c.mu.Lock()
	delete(c.mine, tenantID)
	c.mu.Unlock()
}

// advance links the imported chained entries of each tenant that has no link yet, so that
// appends after an import continue the imported chains. Importing into a tenant that has a
// chain of its own is not supported: its places would collide (audit verify reports it).
func (c *chains) advance(ctx context.Context, imported []tenants.AuditEntry) error {
	last := map[string]tenants.AuditEntry{}
	for _, e := range imported {
		if e.Chain > last[e.TenantID].Chain {
			last[e.TenantID] = e
		}
	}
	for tenantID, e := range last {
		_, err := c.links.InsertOne(ctx, linkDoc{ID: linkID(tenantID, 1), TenantID: tenantID, First: 1, Last: e.Chain, Hash: e.Hash, LastID: e.ID})
		c.forget(tenantID)
		if err != nil && !mongo.IsDuplicateKeyError(err) {
			return translate("link imported audit entries", err)
		}
	}
	return nil
}
