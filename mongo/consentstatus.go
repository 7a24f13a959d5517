package mongo

import (
	"context"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// statusFilter keeps the records whose consent (one name, or "" for any of them) reads status
// at now.
func statusFilter(consent tenants.ConsentName, status tenants.ConsentStatus, now time.Time) (bson.D, error) {
	names := []tenants.ConsentName{consent}
	if consent == "" {
		names = tenants.ConsentNames()
	}
	var conds bson.A
	for _, name := range names {
		c, ok := statusIs(name, status, now)
		if !ok {
			return nil, fmt.Errorf("list records: unknown consent %q or status %q", consent, status)
		}
		conds = append(conds, c)
	}
	if len(conds) == 1 {
		return conds[0].(bson.D), nil
	}
	return bson.D{{Key: "$or", Value: conds}}, nil
}

// statusIs is the condition "this consent reads status at now", deadlines applied as
// Consent.StatusAt applies them: a consent stored as granted reads expired from its deadline on.
func statusIs(consent tenants.ConsentName, status tenants.ConsentStatus, now time.Time) (bson.D, bool) {
	if (&tenants.Consents{}).ByName(consent) == nil {
		return nil, false
	}
	st, dl := "consents."+string(consent)+".status", "consents."+string(consent)+".deadline"
	switch status {
	case tenants.StatusGranted:
		return bson.D{{Key: st, Value: tenants.StatusGranted}, {Key: "$or", Value: bson.A{
			bson.D{{Key: dl, Value: nil}}, bson.D{{Key: dl, Value: bson.D{{Key: "$gt", Value: now}}}}}}}, true
	case tenants.StatusExpired:
		return bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: st, Value: tenants.StatusExpired}}, passed(consent, now)}}}, true
	case tenants.StatusRevoked:
		return bson.D{{Key: st, Value: tenants.StatusRevoked}}, true
	case tenants.StatusNotGranted:
		return bson.D{{Key: st, Value: bson.D{{Key: "$nin", Value: bson.A{
			tenants.StatusGranted, tenants.StatusExpired, tenants.StatusRevoked}}}}}, true
	case tenants.StatusPending:
		return bson.D{{Key: st, Value: tenants.StatusPending}, {Key: "consents." + string(consent) + ".confirmBy", Value: bson.D{{Key: "$gt", Value: now}}}}, true
	case tenants.StatusLapsed:
		return bson.D{{Key: st, Value: tenants.StatusPending}, {Key: "$or", Value: bson.A{
			bson.D{{Key: "consents." + string(consent) + ".confirmBy", Value: nil}},
			bson.D{{Key: "consents." + string(consent) + ".confirmBy", Value: bson.D{{Key: "$lte", Value: now}}}}}}}, true
	}
	return nil, false
}

// passed is the condition "this consent is stored as granted and its deadline has passed".
func passed(consent tenants.ConsentName, now time.Time) bson.D {
	return bson.D{{Key: "consents." + string(consent) + ".status", Value: tenants.StatusGranted},
		{Key: "consents." + string(consent) + ".deadline", Value: bson.D{{Key: "$lte", Value: now}}}}
}

// ConsentStats counts the tenant's live records of kind per consent and status at now,
// deadlines applied, and its anonymised records apart: one grouping by the stored statuses, then per consent a count of the granted ones
// whose deadline has passed, which read expired. (MongoDB alone could apply the deadlines
// inside the grouping with $cond, in one pass; FerretDB, the tests' server, lacks $cond.)
func (r *Records) ConsentStats(ctx context.Context, tenantID string, kind tenants.Kind, now time.Time) (tenants.ConsentStats, error) {
	var out tenants.ConsentStats
	c, err := r.col(kind)
	if err != nil {
		return out, err
	}
	group := bson.D{}
	for _, name := range tenants.ConsentNames() {
		group = append(group, bson.E{Key: string(name), Value: "$consents." + string(name) + ".status"})
	}
	cur, err := c.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: live(tenantID)}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: group}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err != nil {
		return out, translate("consent stats", err)
	}
	var rows []struct {
		Statuses map[string]string `bson:"_id"`
		N        int64             `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return out, translate("consent stats", err)
	}
	for _, row := range rows {
		for _, name := range tenants.ConsentNames() {
			// StatusCounts.Add reads a stored status as Consent.StatusAt does, deadline aside.
			out.Of(name).Add(tenants.ConsentStatus(row.Statuses[string(name)]), row.N)
		}
	}
	for _, name := range tenants.ConsentNames() {
		n, err := c.CountDocuments(ctx, append(live(tenantID), passed(name, now)...))
		if err != nil {
			return out, translate("consent stats", err)
		}
		out.Of(name).Granted -= n
		out.Of(name).Expired += n
	}
	out.Anonymised, err = c.CountDocuments(ctx, bson.D{{Key: "tenantId", Value: tenantID}, {Key: "anonymisedAt", Value: bson.D{{Key: "$ne", Value: nil}}}})
	return out, translate("consent stats", err)
}

// live is the filter of the tenant's records that are not anonymised.
func live(tenantID string) bson.D {
	return bson.D{{Key: "tenantId", Value: tenantID}, {Key: "anonymisedAt", Value: nil}}
}
