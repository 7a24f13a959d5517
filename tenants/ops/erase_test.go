package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// failingMarks fails its first call, as a process dying between stripping and marking would.
type failingMarks struct {
	next   tenants.ErasureMarks
	failed bool
}

func (f *failingMarks) MarkMany(ctx context.Context, tenantID string, ids []string, now time.Time) ([]bool, error) {
	if !f.failed {
		f.failed = true
		return nil, errors.New("process died")
	}
	return f.next.MarkMany(ctx, tenantID, ids, now)
}

// TestEraseRepeatCompletesAfterCrash: an erasure interrupted after the records were stripped
// but before they were counted is completed by repeating it: counted once, audited, and no
// match key or lookup of the person is left.
func TestEraseRepeatCompletesAfterCrash(t *testing.T) {
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
	svc.Marks = &failingMarks{next: store.Erasures}
	who := ops.Identity{Email: email}
	if _, err := svc.Erase(ctx, "t1", "test", "", who); err == nil {
		t.Fatal("the interrupted erasure reported success")
	}
	counts, err := svc.Erase(ctx, "t1", "test", "", who)
	if err != nil || counts.FormSubmissions != 2 {
		t.Fatalf("repeat = %+v, %v; want 2 form submissions", counts, err)
	}
	for _, id := range []string{"a", "b"} {
		rec, err := store.Records.Get(ctx, "t1", tenants.KindFormSubmission, id)
		if err != nil || rec.Contact.Email != nil || rec.Contact.PhoneNumber != nil || len(rec.MatchKeys) != 0 || rec.AnonymisedAt == nil {
			t.Errorf("record %s after the repeat: %+v %v", id, rec, err)
		}
	}
	entries, err := store.Audit.List(ctx, "t1", tenants.AuditFilter{Action: tenants.ActionGDPRAnonymised})
	if err != nil || len(entries) != 1 || entries[0].Counts["formSubmissions"] != 2 {
		t.Errorf("audit: %+v %v", entries, err)
	}
	for _, id := range []ops.Identity{who, {Phone: phone}} {
		if c, err := svc.Preview(ctx, "t1", id); err != nil || c.Total() != 0 {
			t.Errorf("still found by %+v: %+v %v", id, c, err)
		}
		if refs, _ := store.People.Refs(ctx, "t1", svc.Hasher.Hash("t1", map[bool]string{true: "e", false: "p"}[id.Email != ""], id.Email+id.Phone)); len(refs) != 0 {
			t.Errorf("lookup of %+v left: %v", id, refs)
		}
	}
	if c, _ := svc.Erase(ctx, "t1", "test", "", who); c.Total() != 0 {
		t.Errorf("third call = %+v, want zeros", c)
	}
}
