package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

var errDied = errors.New("process died")

// failingMarks fails its first call: the process dying before the records are counted.
type failingMarks struct {
	tenants.ErasureMarks
	failed bool
}

func (f *failingMarks) MarkMany(ctx context.Context, tenantID string, ids []string, now time.Time) ([]bool, error) {
	if !f.failed {
		f.failed = true
		return nil, errDied
	}
	return f.ErasureMarks.MarkMany(ctx, tenantID, ids, now)
}

// failingStrip fails its first ReplaceMany: the process dying after counting and auditing,
// before the records are stripped.
type failingStrip struct {
	tenants.RecordStore
	failed bool
}

func (f *failingStrip) ReplaceMany(ctx context.Context, recs []tenants.Record) error {
	if !f.failed {
		f.failed = true
		return errDied
	}
	return f.RecordStore.ReplaceMany(ctx, recs)
}

// TestEraseRepeatCompletesAfterCrash: an erasure interrupted at either step is completed by
// repeating it: every record stripped, counted once, audited once, and no match key or lookup
// of the person left.
func TestEraseRepeatCompletesAfterCrash(t *testing.T) {
	cases := []struct {
		name        string
		interrupt   func(*ops.Service)
		repeatCount int // what the repeat counts: the interrupted call may have counted already
	}{
		{"before counting", func(s *ops.Service) { s.Marks = &failingMarks{ErasureMarks: s.Marks} }, 2},
		{"before stripping", func(s *ops.Service) { s.Records = &failingStrip{RecordStore: s.Records} }, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			now := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
			svc, store := service(t, now)
			email, phone := "ada@example.org", "+4915112345678"
			for _, id := range []string{"a", "b"} {
				rec := tenants.Record{ID: tenants.RecordID("t1", tenants.KindFormSubmission, id), TenantID: "t1",
					Kind: tenants.KindFormSubmission, PublicID: id, CreatedAt: now.Now(),
					Contact: tenants.Contact{Email: &email, PhoneNumber: &phone}}
				if err := svc.Ingest(ctx, rec, "test", ""); err != nil {
					t.Fatal(err)
				}
			}
			c.interrupt(svc)
			who := ops.Identity{Email: email}
			if _, err := svc.Erase(ctx, "t1", "test", "", who); !errors.Is(err, errDied) {
				t.Fatalf("the interrupted erasure: %v", err)
			}
			counts, err := svc.Erase(ctx, "t1", "test", "", who)
			if err != nil || counts.FormSubmissions != c.repeatCount {
				t.Fatalf("repeat = %+v, %v; want %d form submissions", counts, err, c.repeatCount)
			}
			for _, id := range []string{"a", "b"} {
				rec, err := store.Records.Get(ctx, "t1", tenants.KindFormSubmission, id)
				if err != nil || rec.Contact.Email != nil || rec.Contact.PhoneNumber != nil || len(rec.MatchKeys) != 0 || rec.AnonymisedAt == nil {
					t.Errorf("record %s after the repeat: %+v %v", id, rec, err)
				}
			}
			entries, err := store.Audit.List(ctx, "t1", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
			if err != nil || len(entries) != 1 || entries[0].Counts["formSubmissions"] != 2 {
				t.Errorf("audit: %+v %v; want one entry counting 2", entries, err)
			}
			for kind, v := range map[string]string{"e": email, "p": phone} {
				if refs, _ := store.People.Refs(ctx, "t1", svc.Hasher.Hash("t1", kind, v)); len(refs) != 0 {
					t.Errorf("lookup %s left: %v", kind, refs)
				}
			}
			if c, _ := svc.Erase(ctx, "t1", "test", "", who); c.Total() != 0 {
				t.Errorf("third call = %+v, want zeros", c)
			}
		})
	}
}
