package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/jobs"
	"github.com/consentforms/consentforms/tenants/ops"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// passes are the job passes over the cases of a fresh SQLite store.
func passes(t *testing.T, now *clock) (*jobs.Passes, *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	svc := ops.New(ops.Config{Records: s.Records, Forms: s.Forms, Writer: s.Writer, Hasher: tenants.NewHasher([]byte("secret")), Now: now.Now,
		Bulk: s.Bulk, Audit: s.Audit})
	return &jobs.Passes{Ops: svc}, s
}

// TestExpiryJob: a passed deadline reads expired at once; the job then writes the status and
// one consent.expired audit entry, once, and leaves revoked and live consents alone.
func TestExpiryJob(t *testing.T) {
	ctx := context.Background()
	now := &clock{t: time.Date(2026, 11, 21, 12, 0, 10, 0, time.UTC)}
	p, store := passes(t, now)
	soon, later := now.Now().Add(90*time.Second), now.Now().Add(48*time.Hour)
	granted := func(d *time.Time) tenants.Consent {
		g := now.Now()
		return tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &g, Deadline: d}
	}
	rec := func(id string) tenants.Record {
		return tenants.Record{ID: tenants.RecordID("t1", tenants.KindFormSubmission, id), TenantID: "t1",
			Kind: tenants.KindFormSubmission, PublicID: id, FormID: "f", CreatedAt: now.Now()}
	}
	a := rec("a")
	a.Consents.PrimaryPurpose = granted(&soon)
	a.Consents.GeneralContactEmail = granted(&later)
	b := rec("b")
	b.Consents.GeneralContactEmail = granted(&soon)
	b.Consents.GeneralContactEmail.Status = tenants.StatusRevoked
	for _, r := range []tenants.Record{a, b} {
		if _, err := p.Ops.Intake.Ingest(ctx, r, "test", ""); err != nil {
			t.Fatal(err)
		}
	}
	now.Add(2 * time.Minute)
	got, err := store.Records.Get(ctx, "t1", tenants.KindFormSubmission, "a")
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Consents.PrimaryPurpose.StatusAt(now.Now()); s != tenants.StatusExpired {
		t.Fatalf("before the job: %s, want expired at once", s)
	}
	n, err := p.ExpireDue(ctx)
	if err != nil || n != 1 {
		t.Fatalf("ExpireDue = %d, %v; want 1", n, err)
	}
	got, _ = store.Records.Get(ctx, "t1", tenants.KindFormSubmission, "a")
	if got.Consents.PrimaryPurpose.Status != tenants.StatusExpired || got.Consents.GeneralContactEmail.Status != tenants.StatusGranted {
		t.Errorf("stored statuses: %+v", got.Consents)
	}
	if n, err := p.ExpireDue(ctx); err != nil || n != 0 {
		t.Errorf("second run = %d, %v; want 0", n, err)
	}
	entries, err := store.Audit.List(ctx, "t1", tenants.AuditFilter{Action: tenants.ActionConsentExpired})
	if err != nil || len(entries) != 1 || entries[0].Actor != tenants.ActorSystem || entries[0].RecordIDs[0] != "a" {
		t.Errorf("audit: %+v %v", entries, err)
	}
}
