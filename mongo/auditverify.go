package mongo

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// AuditChains reads the audit log's hash chains and keeps their verifications.
type AuditChains struct {
	chains        *chains
	verifications *mongo.Collection
}

var _ tenants.AuditChainRepo = (*AuditChains)(nil)

// ChainTenants lists the tenants with a chain.
func (r *AuditChains) ChainTenants(ctx context.Context) ([]string, error) {
	var ids []string
	err := r.chains.links.Distinct(ctx, "tenantId", bson.D{}).Decode(&ids)
	slices.Sort(ids)
	return ids, translate("list audit chains", err)
}

// EachChained completes the tenant's last append when a crash interrupted it (the entries its
// latest link holds) and streams its chain in order. A chain that ends before its latest
// link lost its end: the walk is handed the link's last entry as it should be, which breaks
// the chain there, naming the entry that is missing.
func (r *AuditChains) EachChained(ctx context.Context, tenantID string, fn func(tenants.AuditEntry) error) error {
	unlock := r.chains.lock(tenantID)
	head, lastID, err := r.chains.complete(ctx, tenantID)
	unlock()
	if err != nil {
		return err
	}
	var last int64
	err = eachDoc(ctx, r.chains.audit.c, "walk audit chain",
		bson.D{{Key: "tenantId", Value: tenantID}, {Key: "chain", Value: bson.D{{Key: "$gt", Value: 0}}}},
		options.Find().SetSort(bson.D{asc("tenantId"), asc("chain")}), func(d auditDoc) error {
			last = d.Chain
			return fn(d.entry())
		})
	if err != nil || last >= head.Chain {
		return err
	}
	return fn(tenants.AuditEntry{ID: lastID, TenantID: tenantID, Chain: head.Chain, Hash: head.Hash})
}

// verificationDoc is a tenant's last verification as stored.
type verificationDoc struct {
	TenantID   string    `bson:"_id"`
	VerifiedAt time.Time `bson:"verifiedAt"`
	Entries    int64     `bson:"entries"`
	HeadChain  int64     `bson:"headChain"`
	HeadHash   string    `bson:"headHash"`
	LastID     string    `bson:"lastId"`
	UpTo       time.Time `bson:"upTo"`
	OK         bool      `bson:"ok"`
	BrokenID   string    `bson:"brokenId"`
}

// SaveVerification replaces the tenant's last verification.
func (r *AuditChains) SaveVerification(ctx context.Context, v tenants.ChainVerification) error {
	d := verificationDoc{TenantID: v.TenantID, VerifiedAt: v.VerifiedAt, Entries: v.Entries, HeadChain: v.Head.Chain, HeadHash: v.Head.Hash,
		LastID: v.LastID, UpTo: v.UpTo, OK: v.OK, BrokenID: v.BrokenID}
	_, err := r.verifications.ReplaceOne(ctx, bson.D{{Key: "_id", Value: v.TenantID}}, d, options.Replace().SetUpsert(true))
	return translate("save audit verification", err)
}

// LastVerification returns the tenant's last verification.
func (r *AuditChains) LastVerification(ctx context.Context, tenantID string) (tenants.ChainVerification, error) {
	var d verificationDoc
	err := r.verifications.FindOne(ctx, bson.D{{Key: "_id", Value: tenantID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return tenants.ChainVerification{}, tenants.ErrNotFound
	}
	return d.verification(), translate("read audit verification", err)
}

// Verifications lists every tenant's last verification.
func (r *AuditChains) Verifications(ctx context.Context) ([]tenants.ChainVerification, error) {
	var out []tenants.ChainVerification
	err := eachDoc(ctx, r.verifications, "list audit verifications", bson.D{}, options.Find().SetSort(bson.D{asc("_id")}),
		func(d verificationDoc) error {
			out = append(out, d.verification())
			return nil
		})
	return out, err
}

func (d verificationDoc) verification() tenants.ChainVerification {
	return tenants.ChainVerification{TenantID: d.TenantID, VerifiedAt: d.VerifiedAt, Entries: d.Entries,
		Head: tenants.ChainHead{Chain: d.HeadChain, Hash: d.HeadHash}, LastID: d.LastID, UpTo: d.UpTo, OK: d.OK, BrokenID: d.BrokenID}
}

// Acknowledgments lists the tenant's audit.acknowledged entries.
func (r *AuditChains) Acknowledgments(ctx context.Context, tenantID string) ([]tenants.AuditEntry, error) {
	return r.chains.audit.List(ctx, tenantID, tenants.AuditFilter{Action: tenants.ActionAuditAcknowledged})
}
