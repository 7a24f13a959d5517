package mongo

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The audit chain on MongoDB. Several instances append and there are no multi-document
// transactions, so each tenant's chain has a head document (collection auditheads, _id the
// tenant id) that says where the chain ends and carries the entries of the last append:
//
//  1. read the head (or use the one this process wrote last) and, when another process wrote
//     it, insert its pending entries (a no-op when they are there: same ids);
//  2. link the new entries after it and move the head with a compare-and-set on its place
//     and hash, the new entries as its pending ones; when another append moved it first,
//     start again at 1;
//  3. insert the new entries.
//
// A crash after 2 leaves the head ahead of the entries; the next append to the tenant (step
// 1) or audit verify inserts them, so the chain is whole again: nothing is lost and nothing
// forks. Within a process, appends of one tenant wait for each other (a striped lock), so the
// compare-and-set fails only when instances race. docs/STORAGE.md has the same in prose.
type chains struct {
	heads *mongo.Collection
	audit *Audit

	stripes [64]sync.Mutex
	mu      sync.Mutex
	// mine are the heads this process moved and completed (step 3 done), per tenant.
	mine map[string]tenants.ChainHead
}

// headDoc is a tenant's chain head as stored.
type headDoc struct {
	TenantID string     `bson:"_id"`
	Chain    int64      `bson:"chain"`
	Hash     string     `bson:"hash"`
	Pending  []auditDoc `bson:"pending"`
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

// append adds entries, all of tenantID, at the end of its chain. An entry that may exist
// already (check[i], or all when check is nil: ids derived from what they record) is looked
// up first and left out when it does: it has its place in the chain.
func (c *chains) append(ctx context.Context, tenantID string, entries []auditDoc, check []bool) error {
	defer c.lock(tenantID)()
	entries, err := c.leaveOutExisting(ctx, tenantID, entries, check)
	if err != nil || len(entries) == 0 {
		return err
	}
	for range maxCASTries {
		head, err := c.head(ctx, tenantID)
		if err != nil {
			return err
		}
		docs := make([]any, len(entries))
		next := head
		for i, d := range entries {
			next = next.Link(&d.AuditEntry)
			docs[i] = d
		}
		moved, err := c.move(ctx, tenantID, head, next, docs)
		if err != nil {
			return err
		}
		if !moved {
			c.forget(tenantID)
			continue
		}
		if err := c.insert(ctx, docs); err != nil {
			c.forget(tenantID) // the next append completes it
			return err
		}
		c.mu.Lock()
		c.mine[tenantID] = next
		c.mu.Unlock()
		return nil
	}
	return fmt.Errorf("append audit: the chain of a tenant kept moving: %w", tenants.ErrUnavailable)
}

// leaveOutExisting drops the entries to check whose ids are stored.
func (c *chains) leaveOutExisting(ctx context.Context, tenantID string, entries []auditDoc, check []bool) ([]auditDoc, error) {
	var ids []string
	for i, e := range entries {
		if e.ID != "" && (check == nil || check[i]) {
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
	return c.complete(ctx, tenantID)
}

// complete reads the tenant's stored head and inserts its pending entries.
func (c *chains) complete(ctx context.Context, tenantID string) (tenants.ChainHead, error) {
	var d headDoc
	err := c.heads.FindOne(ctx, bson.D{{Key: "_id", Value: tenantID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return tenants.ChainHead{}, nil
	}
	if err != nil {
		return tenants.ChainHead{}, translate("read audit chain", err)
	}
	docs := make([]any, len(d.Pending))
	for i, p := range d.Pending {
		docs[i] = p
	}
	return tenants.ChainHead{Chain: d.Chain, Hash: d.Hash}, c.insert(ctx, docs)
}

// move sets the head to next, with docs pending, if it is still at from.
func (c *chains) move(ctx context.Context, tenantID string, from, next tenants.ChainHead, docs []any) (bool, error) {
	pending := bson.A(docs)
	if from.Chain == 0 {
		_, err := c.heads.InsertOne(ctx, bson.D{{Key: "_id", Value: tenantID}, {Key: "chain", Value: next.Chain},
			{Key: "hash", Value: next.Hash}, {Key: "pending", Value: pending}})
		if mongo.IsDuplicateKeyError(err) {
			return false, nil
		}
		return err == nil, translate("move audit chain", err)
	}
	res, err := c.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: tenantID}, {Key: "chain", Value: from.Chain}, {Key: "hash", Value: from.Hash}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "chain", Value: next.Chain}, {Key: "hash", Value: next.Hash}, {Key: "pending", Value: pending}}}})
	if err != nil {
		return false, translate("move audit chain", err)
	}
	return res.MatchedCount == 1, nil
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

// advance moves each tenant's head to the last of the imported chained entries when it lies
// behind it, so that appends after an import continue the imported chains.
func (c *chains) advance(ctx context.Context, imported []tenants.AuditEntry) error {
	last := map[string]tenants.AuditEntry{}
	for _, e := range imported {
		if e.Chain > last[e.TenantID].Chain {
			last[e.TenantID] = e
		}
	}
	for tenantID, e := range last {
		unlock := c.lock(tenantID)
		_, err := c.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: tenantID}, {Key: "chain", Value: bson.D{{Key: "$lt", Value: e.Chain}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "chain", Value: e.Chain}, {Key: "hash", Value: e.Hash}, {Key: "pending", Value: bson.A{}}}}},
			options.UpdateOne().SetUpsert(true))
		c.forget(tenantID)
		unlock()
		if err != nil && !mongo.IsDuplicateKeyError(err) {
			return translate("advance audit chain", err)
		}
	}
	return nil
}
