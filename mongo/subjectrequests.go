package mongo

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// SubjectRequests keeps data-subject requests, one document each. openKey holds the person
// and kind while a request is open and its own id once done, under a unique index with the
// tenant (the collection is small and stays unsharded), so that two filings at once store one
// request; closing is a single-document update whose filter holds the condition.
type SubjectRequests struct{ c *mongo.Collection }

var _ tenants.SubjectRequestRepo = (*SubjectRequests)(nil)

// subjectRequestDoc is a request as stored.
type subjectRequestDoc struct {
	ID         string       `bson:"_id"`
	TenantID   string       `bson:"tenantId"`
	Kind       string       `bson:"kind"`
	Subject    string       `bson:"subject"`
	RecordKind tenants.Kind `bson:"recordKind"`
	RecordID   string       `bson:"recordId"`
	Source     string       `bson:"source"`
	FiledAt    time.Time    `bson:"filedAt"`
	Status     string       `bson:"status"`
	OpenKey    string       `bson:"openKey"`
	DoneBy     string       `bson:"doneBy,omitempty"`
	DoneAt     *time.Time   `bson:"doneAt,omitempty"`
}

func toSubjectRequestDoc(r tenants.SubjectRequest) subjectRequestDoc {
	key := r.ID
	if r.Status == tenants.SubjectRequestOpen {
		key = "open:" + r.Kind + ":" + r.Subject
	}
	return subjectRequestDoc{ID: r.ID, TenantID: r.TenantID, Kind: r.Kind, Subject: r.Subject, RecordKind: r.RecordKind, RecordID: r.RecordID,
		Source: r.Source, FiledAt: r.FiledAt, Status: r.Status, OpenKey: key, DoneBy: r.DoneBy, DoneAt: r.DoneAt}
}

func (d subjectRequestDoc) request() tenants.SubjectRequest {
	r := tenants.SubjectRequest{ID: d.ID, TenantID: d.TenantID, Kind: d.Kind, Subject: d.Subject, RecordKind: d.RecordKind, RecordID: d.RecordID,
		Source: d.Source, FiledAt: d.FiledAt.UTC(), Status: d.Status, DoneBy: d.DoneBy}
	if d.DoneAt != nil {
		t := d.DoneAt.UTC()
		r.DoneAt = &t
	}
	return r
}

// FileSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) FileSubjectRequest(ctx context.Context, req tenants.SubjectRequest) (tenants.SubjectRequest, bool, error) {
	doc := toSubjectRequestDoc(req)
	_, err := r.c.InsertOne(ctx, doc)
	if err = translate("file subject request", err); !errors.Is(err, tenants.ErrConflict) {
		return req, err == nil, err
	}
	var open subjectRequestDoc
	err = r.c.FindOne(ctx, bson.D{{Key: "tenantId", Value: req.TenantID}, {Key: "openKey", Value: doc.OpenKey}}).Decode(&open)
	if errors.Is(err, mongo.ErrNoDocuments) { // the same id filed and closed already: a repeat
		err = r.c.FindOne(ctx, ofTenant(req.TenantID, req.ID)).Decode(&open)
	}
	return open.request(), false, translate("file subject request", err)
}

// GetSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) GetSubjectRequest(ctx context.Context, tenantID, id string) (tenants.SubjectRequest, error) {
	var d subjectRequestDoc
	err := r.c.FindOne(ctx, ofTenant(tenantID, id)).Decode(&d)
	return d.request(), translate("get subject request", err)
}

// ListSubjectRequests implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) ListSubjectRequests(ctx context.Context, tenantID string, f tenants.SubjectRequestFilter, limit int) ([]tenants.SubjectRequest, error) {
	filter := bson.D{{Key: "tenantId", Value: tenantID}}
	for _, c := range [][2]string{{"status", f.Status}, {"subject", f.Subject}, {"recordId", f.RecordID}} {
		if c[1] != "" {
			filter = append(filter, bson.E{Key: c[0], Value: c[1]})
		}
	}
	opts := options.Find().SetSort(bson.D{desc("filedAt"), asc("_id")})
	if limit > 0 {
		opts.SetLimit(int64(limit))
	}
	docs, err := findAll[subjectRequestDoc](ctx, r.c, "list subject requests", filter, opts)
	return convertDocs(docs, err, subjectRequestDoc.request)
}

// CloseSubjectRequest implements tenants.SubjectRequestRepo.
func (r *SubjectRequests) CloseSubjectRequest(ctx context.Context, tenantID, id, by string, at time.Time) error {
	filter := append(ofTenant(tenantID, id), bson.E{Key: "status", Value: tenants.SubjectRequestOpen})
	res, err := r.c.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: tenants.SubjectRequestDone},
		{Key: "openKey", Value: id}, {Key: "doneBy", Value: by}, {Key: "doneAt", Value: at.UTC()}}}})
	if err != nil {
		return translate("close subject request", err)
	}
	if res.MatchedCount == 1 {
		return nil
	}
	if _, err := r.GetSubjectRequest(ctx, tenantID, id); errors.Is(err, tenants.ErrNotFound) {
		return err
	}
	return tenants.ErrConflict
}
