package mongo

import (
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestLapsedBackfill: records stored before lapsedAt existed (no field, no index) get it at the
// next start, so that retention counted from consents-lapsed finds them.
func TestLapsedBackfill(t *testing.T) {
	db := freshDB(t)
	s := openStore(t, server.URI(), db)
	rec := person("a", tenants.KindFormSubmission, "old", "k1")
	deadline := t0.Add(time.Hour)
	rec.Consents.PrimaryPurpose.Deadline = &deadline
	rec.Consents.GeneralContactEmail = tenants.Consent{}
	ingest(t, s, rec)
	c := s.db.Collection(recordCollections[tenants.KindFormSubmission])
	// As an earlier version left it.
	if _, err := c.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$unset", Value: bson.D{{Key: "lapsedAt", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Indexes().DropOne(ctx, lapsedIndex); err != nil {
		t.Fatal(err)
	}
	due := func(s *Store) []tenants.Record {
		got, err := s.Records.Due(ctx, "a", tenants.DueQuery{FormID: "petition", From: tenants.RetentionFromConsentsLapsed, Before: deadline})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := due(s); len(got) != 0 {
		t.Fatalf("before the backfill the record is found: the test would prove nothing")
	}
	again := openStore(t, server.URI(), db)
	if got := due(again); len(got) != 1 || got[0].PublicID != "old" {
		t.Errorf("after reopening: %d due records, want old", len(got))
	}
}
