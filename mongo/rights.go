package mongo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// lapsedIndex is the retention index of consents-lapsed; before it is created, lapsedAt is
// computed for the records stored without it (backfillLapsed).
const lapsedIndex = "tenant_form_retain_lapsed"

// rightsIndexes are the indexes of every record collection that the re-permission list and
// retention read (docs/STORAGE.md): per general-contact channel, the consents by status and
// deadline, for the tenant and per form, ending in _id (the cursor's tie-breaker); and the
// records not anonymised per form by either retention basis.
func rightsIndexes() []index {
	var out []index
	for _, ch := range []struct {
		name    string
		consent tenants.ConsentName
	}{{"email", tenants.ConsentGeneralContactEmail}, {"phone", tenants.ConsentGeneralContactPhone}} {
		st, dl := "consents."+string(ch.consent)+".status", "consents."+string(ch.consent)+".deadline"
		out = append(out,
			index{name: "tenant_" + ch.name + "_expiring", keys: bson.D{asc("tenantId"), asc(st), asc("anonymisedAt"), asc(dl), asc("_id")}},
			index{name: "tenant_form_" + ch.name + "_expiring", keys: bson.D{asc("tenantId"), asc("formId"), asc(st), asc("anonymisedAt"), asc(dl), asc("_id")}})
	}
	return append(out,
		index{name: "tenant_form_retain_created", keys: bson.D{asc("tenantId"), asc("formId"), asc("anonymisedAt"), asc("createdAt")}},
		index{name: lapsedIndex, keys: bson.D{asc("tenantId"), asc("formId"), asc("anonymisedAt"), asc("lapsedAt")}})
}

// backfillLapsed computes lapsedAt for c's records stored before it existed, when want holds
// lapsedIndex and c lacks it: a start that stops half-way has not created the index yet, so
// the next start completes the backfill. The field is derived, so the revision stays.
func backfillLapsed(ctx context.Context, c *mongo.Collection, want []index, have map[string]bool) error {
	if !slices.ContainsFunc(want, func(ix index) bool { return ix.name == lapsedIndex }) || have[lapsedIndex] {
		return nil
	}
	return eachDoc(ctx, c, "backfill lapsedAt", bson.D{{Key: "lapsedAt", Value: bson.D{{Key: "$exists", Value: false}}}}, options.Find(),
		func(d recordDoc) error {
			_, err := c.UpdateOne(ctx, byID(d.ID), bson.D{{Key: "$set", Value: bson.D{{Key: "lapsedAt", Value: d.Consents.consents().LapsedAt(d.CreatedAt)}}}})
			return translate("backfill lapsedAt", err)
		})
}

// SetRetention stores the tenant's default retention and what it counts from.
func (r *Tenants) SetRetention(ctx context.Context, tenantID, retention, from string) error {
	return updateOne(ctx, r.c, "update tenant", byID(tenantID), bson.D{{Key: "$set", Value: bson.D{
		{Key: "retention", Value: retention}, {Key: "retentionFrom", Value: from}}}})
}

// Expiring returns one page of the re-permission list: per collection the page in (deadline,
// _id) order through the channel's index, merged.
func (r *Records) Expiring(ctx context.Context, tenantID string, q tenants.ExpiringQuery) ([]tenants.Record, error) {
	if q.Consent != tenants.ConsentGeneralContactEmail && q.Consent != tenants.ConsentGeneralContactPhone {
		return nil, fmt.Errorf("expiring consents: unknown consent %q", q.Consent)
	}
	st, dl := "consents."+string(q.Consent)+".status", "consents."+string(q.Consent)+".deadline"
	filter := bson.D{{Key: "tenantId", Value: tenantID}}
	if q.FormID != "" {
		filter = append(filter, bson.E{Key: "formId", Value: q.FormID})
	}
	filter = append(filter, bson.E{Key: st, Value: tenants.StatusGranted}, bson.E{Key: "anonymisedAt", Value: nil})
	conds := bson.A{bson.D{{Key: dl, Value: bson.D{{Key: "$gt", Value: q.After}, {Key: "$lte", Value: q.Until}}}}}
	if q.Cursor != nil {
		conds = append(conds, bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: dl, Value: bson.D{{Key: "$gt", Value: q.Cursor.Deadline}}}},
			bson.D{{Key: dl, Value: q.Cursor.Deadline}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: q.Cursor.ID}}}},
		}}})
	}
	filter = append(filter, bson.E{Key: "$and", Value: conds})
	opts := options.Find().SetSort(bson.D{asc(dl), asc("_id")})
	if q.Limit > 0 {
		opts.SetLimit(int64(q.Limit))
	}
	recs, err := r.eachKind(ctx, "expiring consents", filter, opts)
	if err != nil {
		return nil, err
	}
	deadline := func(rec tenants.Record) time.Time { return *rec.Consents.ByName(q.Consent).Deadline }
	sort.Slice(recs, func(i, j int) bool {
		if di, dj := deadline(recs[i]), deadline(recs[j]); !di.Equal(dj) {
			return di.Before(dj)
		}
		return recs[i].ID < recs[j].ID
	})
	if q.Limit > 0 && len(recs) > q.Limit {
		recs = recs[:q.Limit]
	}
	return recs, nil
}

// Due returns the records retention anonymises, oldest first, through the retention indexes.
func (r *Records) Due(ctx context.Context, tenantID string, q tenants.DueQuery) ([]tenants.Record, error) {
	filter, col, err := dueFilter(tenantID, q)
	if err != nil {
		return nil, err
	}
	opts := options.Find().SetSort(bson.D{asc(col), asc("_id")})
	if q.Limit > 0 {
		opts.SetLimit(int64(q.Limit))
	}
	recs, err := r.eachKind(ctx, "due records", filter, opts)
	if err != nil {
		return nil, err
	}
	basis := func(rec tenants.Record) time.Time {
		if col == "createdAt" {
			return rec.CreatedAt
		}
		return *rec.Consents.LapsedAt(rec.CreatedAt)
	}
	sort.Slice(recs, func(i, j int) bool {
		if bi, bj := basis(recs[i]), basis(recs[j]); !bi.Equal(bj) {
			return bi.Before(bj)
		}
		return recs[i].ID < recs[j].ID
	})
	if q.Limit > 0 && len(recs) > q.Limit {
		recs = recs[:q.Limit]
	}
	return recs, nil
}

// CountDue counts the records Due would return.
func (r *Records) CountDue(ctx context.Context, tenantID string, q tenants.DueQuery) (int64, error) {
	filter, _, err := dueFilter(tenantID, q)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, kind := range tenants.Kinds() {
		c, _ := r.col(kind)
		n, err := c.CountDocuments(ctx, filter)
		if err != nil {
			return 0, translate("count due records", err)
		}
		total += n
	}
	return total, nil
}

func dueFilter(tenantID string, q tenants.DueQuery) (bson.D, string, error) {
	var col string
	switch tenants.RetentionBasis(q.From) {
	case tenants.RetentionFromCreated:
		col = "createdAt"
	case tenants.RetentionFromConsentsLapsed:
		col = "lapsedAt"
	default:
		return nil, "", fmt.Errorf("due records: unknown retention basis %q", q.From)
	}
	return bson.D{{Key: "tenantId", Value: tenantID}, {Key: "formId", Value: q.FormID}, {Key: "anonymisedAt", Value: nil},
		{Key: col, Value: bson.D{{Key: "$ne", Value: nil}, {Key: "$lte", Value: q.Before}}}}, col, nil
}

// eachKind runs one query on every record collection at once and returns the records found.
func (r *Records) eachKind(ctx context.Context, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]tenants.Record, error) {
	found := make([][]recordDoc, len(tenants.Kinds()))
	errs := make([]error, len(tenants.Kinds()))
	var wg sync.WaitGroup
	for i, kind := range tenants.Kinds() {
		c, _ := r.col(kind)
		wg.Go(func() { found[i], errs[i] = findAll[recordDoc](ctx, c, op, filter, opts) })
	}
	wg.Wait()
	var out []tenants.Record
	for i := range found {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, d := range found[i] {
			rec, err := d.record()
			if err != nil {
				return nil, err
			}
			out = append(out, rec)
		}
	}
	return out, nil
}

// changeDocs reads the records a change applies to: those named by id (each by _id alone), or
// those carrying its match keys.
func (r *Records) changeDocs(ctx context.Context, ch tenants.Change) ([]recordDoc, error) {
	if len(ch.RecordIDs) == 0 {
		return r.findDocs(ctx, ch.TenantID, ch.MatchKeys, ch.Kinds)
	}
	var out []recordDoc
	for _, id := range ch.RecordIDs {
		rest, ok := strings.CutPrefix(id, ch.TenantID+":")
		kind, _, _ := strings.Cut(rest, ":")
		if !ok || (len(ch.Kinds) > 0 && !slices.Contains(ch.Kinds, tenants.Kind(kind))) {
			continue
		}
		d, err := r.getDoc(ctx, ch.TenantID, tenants.Kind(kind), id)
		if errors.Is(err, tenants.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// reached reports whether a change still applies to the record: it is named by id, or it
// carries one of the change's match keys.
func (d recordDoc) reached(ch tenants.Change) bool {
	if len(ch.RecordIDs) > 0 {
		return slices.Contains(ch.RecordIDs, d.ID)
	}
	return d.carries(ch.MatchKeys)
}
