package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/consentforms/consentforms/mongo"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// benchStore seeds persons × 2 records of each of the four types through the store in bulk
// (the same ingest path the API uses, batched), then starts the real server on that data
// and times erasures and unsubscribes of single persons over HTTP.
func benchStore(ctx context.Context, bin string, people, samples int) error {
	dir, err := os.MkdirTemp("", "bench-store")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	t, err := cli(bin, dir, "tenant", "create", "--name", "Bench", "--rate-limit", "1000000")
	if err != nil {
		return err
	}
	tid := t["id"].(string)
	if _, err := cli(bin, dir, "form", "create", "--tenant", tid, "--form-id", "petition"); err != nil {
		return err
	}
	k, err := cli(bin, dir, "key", "create", "--tenant", tid, "--scopes", "all")
	if err != nil {
		return err
	}
	key := k["key"].(string)

	start := time.Now()
	if err := seed(ctx, dir, tid, people); err != nil {
		return err
	}
	fmt.Printf("seeded %d records per type (%d persons) in %s\n", 2*people, people, time.Since(start).Round(time.Second))

	srv, err := startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	var erase, unsub []time.Duration
	for i := 0; i < samples; i++ {
		p := i * (people / (2 * samples))
		t0 := time.Now()
		status, body, err := post(srv.url+"/api/v1/gdpr/search-and-anonymise", key, map[string]any{"email": email(p)})
		if err != nil || status != 200 {
			return fmt.Errorf("erase: %d %s %v", status, body, err)
		}
		erase = append(erase, time.Since(t0))
		q := people/2 + p
		t0 = time.Now()
		status, body, err = post(srv.url+"/api/v1/brevo/unsubscribe", key, map[string]any{"email": email(q)})
		if err != nil || status != 200 {
			return fmt.Errorf("unsubscribe: %d %s %v", status, body, err)
		}
		unsub = append(unsub, time.Since(t0))
	}
	printLatency("erasure of one person (8 records)", erase)
	printLatency("unsubscribe of one person (6 records)", unsub)
	return nil
}

func email(p int) string { return fmt.Sprintf("person%d@example.org", p) }

func printLatency(name string, d []time.Duration) {
	slices.Sort(d)
	pct := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	fmt.Printf("%-40s n=%d  p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms\n", name, len(d),
		ms(pct(0.5)), ms(pct(0.99)), ms(d[len(d)-1]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func seed(ctx context.Context, dir, tenantID string, people int) error {
	store, err := mongo.Open(ctx, mongo.Config{Database: "consentforms", DataDir: dir})
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	secret, err := store.Settings.Secret(ctx, "hmac")
	if err != nil {
		return err
	}
	svc := &ops.Service{Hasher: tenants.NewHasher(secret), Now: time.Now}
	now := time.Now().UTC()
	deadline := now.Add(365 * 24 * time.Hour)
	var batch []tenants.Ingestion
	flush := func() error {
		for _, err := range store.IngestBatch(ctx, batch) {
			if err != nil {
				return err
			}
		}
		batch = batch[:0]
		return nil
	}
	for p := 0; p < people; p++ {
		e, ph := email(p), fmt.Sprintf("+4915%08d", p)
		for _, kind := range tenants.Kinds {
			for r := 0; r < 2; r++ {
				pub := fmt.Sprintf("%s-%d-%d", kind, p, r)
				rec := tenants.Record{ID: tenants.RecordID(tenantID, kind, pub), TenantID: tenantID, Kind: kind, PublicID: pub,
					CreatedAt: now, Contact: tenants.Contact{Email: &e, PhoneNumber: &ph}, Payload: map[string]any{"interest": "forests"}}
				if kind != tenants.KindPhoneCallTask {
					rec.FormID = "petition"
					g := tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &now}
					rec.Consents.PrimaryPurpose = g
					rec.Consents.PrimaryPurpose.Deadline = &deadline
					rec.Consents.GeneralContactEmail = g
				}
				batch = append(batch, svc.Prepare(rec, "bench", ""))
			}
		}
		if len(batch) >= 2000 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
