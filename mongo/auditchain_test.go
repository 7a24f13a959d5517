package mongo

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func chainEntry(tenant string, i int) tenants.AuditEntry {
	return tenants.AuditEntry{Time: t0.Add(sec(i)), TenantID: tenant, Actor: "key:1", Action: tenants.ActionConsentRevoked, Detail: fmt.Sprint(i)}
}

func sec(i int) time.Duration { return time.Duration(i) * time.Second }

func verifyOK(t *testing.T, s *Store, tenantID string, entries int64) {
	t.Helper()
	rep, err := tenants.VerifyChains(ctx, s.AuditChains, tenantID, t0)
	if err != nil || rep != (tenants.ChainReport{Tenants: 1, Entries: entries, OK: true}) {
		t.Fatalf("verify = %+v, %v; want ok over %d entries", rep, err, entries)
	}
}

// TestChainInstancesRace: two instances (two stores on one database) appending to one tenant
// at once claim distinct places: one unbroken chain.
func TestChainInstancesRace(t *testing.T) {
	db := freshDB(t)
	a, b := openStore(t, server.URI(), db), openStore(t, server.URI(), db)
	var wg sync.WaitGroup
	for i := range 30 {
		for _, s := range []*Store{a, b} {
			wg.Go(func() {
				if err := s.Audit.Append(ctx, chainEntry("t", i), chainEntry("t", 100+i)); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	verifyOK(t, a, "t", 120)
}

// TestChainCrashAfterLink: a crash after an append claimed its places but before its entries
// were stored leaves a link holding them; the next append, or verify, stores them.
func TestChainCrashAfterLink(t *testing.T) {
	for name, finish := range map[string]func(t *testing.T, s *Store){
		"next append": func(t *testing.T, s *Store) {
			if err := s.Audit.Append(ctx, chainEntry("t", 9)); err != nil {
				t.Fatal(err)
			}
		},
		"verify": func(t *testing.T, s *Store) {
			if _, err := tenants.VerifyChains(ctx, s.AuditChains, "t", t0); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			db := freshDB(t)
			s := openStore(t, server.URI(), db)
			if err := s.Audit.Append(ctx, chainEntry("t", 1)); err != nil {
				t.Fatal(err)
			}
			// What a crashed instance left: step 2 done, step 3 not.
			head, _, err := s.Audit.chains.complete(ctx, "t")
			if err != nil {
				t.Fatal(err)
			}
			lost := []auditDoc{toAuditDoc(chainEntry("t", 2), 0), toAuditDoc(chainEntry("t", 3), 0)}
			link := linkDoc{ID: linkID("t", head.Chain+1), TenantID: "t", First: head.Chain + 1}
			next := head
			for i := range lost {
				next = lost[i].linkTo(next)
			}
			link.Last, link.Hash, link.Entries = next.Chain, next.Hash, lost
			if _, err := s.Audit.chains.links.InsertOne(ctx, link); err != nil {
				t.Fatal(err)
			}
			other := openStore(t, server.URI(), db) // another instance, knowing nothing of it
			finish(t, other)
			n, err := other.Audit.c.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{lost[0].ID, lost[1].ID}}}}})
			if err != nil || n != 2 {
				t.Fatalf("%d of the lost entries stored (%v), want 2", n, err)
			}
			want := int64(3)
			if name == "next append" {
				want = 4
			}
			verifyOK(t, other, "t", want)
		})
	}
}
