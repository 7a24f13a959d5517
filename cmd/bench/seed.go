package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// writeSecrets writes the data dir's secrets file with a known HMAC key, so that records
// seeded here carry the match keys the server computes.
func writeSecrets(dir string) ([]byte, error) {
	key := make([]byte, 32)
	session := make([]byte, 32)
	_, _ = rand.Read(key)
	_, _ = rand.Read(session)
	b, _ := json.Marshal(map[string]string{"hmac": base64.StdEncoding.EncodeToString(key), "session": base64.StdEncoding.EncodeToString(session)})
	return key, os.WriteFile(filepath.Join(dir, "secrets.json"), b, 0o600)
}

func email(p int) string { return fmt.Sprintf("person%d@example.org", p) }

func phone(p int) string { return fmt.Sprintf("+4915%08d", p) }

// seed stores people × 2 records of each of the four kinds through the store's writer (the
// path the API takes, batched), with the audit entries the API would write.
func seed(ctx context.Context, dir, tenantID string, hmacKey []byte, people int, phoneGranted bool) error {
	store, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	svc := ops.New(ops.Config{Writer: store.Writer, Hasher: tenants.NewHasher(hmacKey), Now: time.Now}).Intake
	start := time.Now().UTC().Add(-time.Duration(people) * time.Second)
	work := make(chan int)
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				for _, rec := range personRecords(tenantID, p, start.Add(time.Duration(p)*time.Second), phoneGranted) {
					if _, err := svc.Ingest(ctx, rec, "key:bench", ""); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for p := 0; p < people; p++ {
		select {
		case work <- p:
		case err := <-errs:
			close(work)
			return err
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	// The records were keyed by this code: say so, as the server does after a re-keying, or
	// its first start would re-key every seeded record before it listens.
	return store.Writer.SetKeyingVersion(ctx, tenants.KeyingVersion)
}

// personRecords are person p's two records of each kind. Consents vary with p so that every
// status filter of the admin list has matches: every fifth person's e-mail consent expired an
// hour ago (as the expiry job has recorded), every seventh person's was revoked. The others'
// e-mail consents run out over the next 60 days, for the re-permission list. With phoneGranted,
// general contact by phone is granted too on every record that has consents, so that an SMS
// opt-out finds something to revoke.
func personRecords(tenantID string, p int, at time.Time, phoneGranted bool) []tenants.Record {
	e, ph := email(p), phone(p)
	yearOn := at.Add(365 * 24 * time.Hour)
	hourAgo := time.Now().Add(-time.Hour)
	var out []tenants.Record
	for _, kind := range tenants.Kinds() {
		for r := range 2 {
			pub := fmt.Sprintf("%s-%d-%d", kind, p, r)
			rec := tenants.Record{ID: tenants.RecordID(tenantID, kind, pub), TenantID: tenantID, Kind: kind, PublicID: pub,
				CreatedAt: at, Contact: tenants.Contact{Email: &e, PhoneNumber: &ph}, Payload: map[string]any{"interest": "forests"}}
			if kind != tenants.KindPhoneCallTask {
				rec.FormID = "petition"
				g := tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &at}
				rec.Consents.PrimaryPurpose = g
				rec.Consents.PrimaryPurpose.Deadline = &yearOn
				rec.Consents.GeneralContactEmail = g
				if phoneGranted {
					rec.Consents.GeneralContactPhone = g
				}
				lapses := time.Now().Add(time.Duration(p%60)*24*time.Hour + time.Duration(p)*time.Second + time.Hour)
				rec.Consents.GeneralContactEmail.Deadline = &lapses
				switch {
				case p%5 == 0:
					rec.Consents.GeneralContactEmail.Status, rec.Consents.GeneralContactEmail.Deadline = tenants.StatusExpired, &hourAgo
				case p%7 == 0:
					rec.Consents.GeneralContactEmail.Status, rec.Consents.GeneralContactEmail.RevokedAt = tenants.StatusRevoked, &hourAgo
				}
			}
			out = append(out, rec)
		}
	}
	return out
}
