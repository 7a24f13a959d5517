package ops_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// watchedForms counts the forms read while the watched writer writes.
type watchedForms struct {
	tenants.FormStore
	writing      *atomic.Bool
	readsInWrite atomic.Int64
}

func (f *watchedForms) Get(ctx context.Context, tenantID, formID string) (tenants.Form, error) {
	if f.writing.Load() {
		f.readsInWrite.Add(1)
	}
	return f.FormStore.Get(ctx, tenantID, formID)
}

// watchedWriter marks its erasures as writing and runs before, when set, first.
type watchedWriter struct {
	tenants.Writer
	writing *atomic.Bool
	before  func()
}

func (w *watchedWriter) Erase(ctx context.Context, ch tenants.Change) ([]tenants.Record, error) {
	if w.before != nil {
		w.before()
		w.before = nil
	}
	w.writing.Store(true)
	defer w.writing.Store(false)
	return w.Writer.Erase(ctx, ch)
}

// TestEraseLoadsBeforeItWrites: an erasure loads what its change needs — the personal fields
// of the forms of the person's records — before the store's write, and reads no form while the
// write runs; the field the form declares personal is gone afterwards. A record of a form the
// person had no record of when the erasure began, stored while it runs, makes it answer
// unavailable with a retry time, writing nothing; the repeat erases every record.
func TestEraseLoadsBeforeItWrites(t *testing.T) {
	ctx := context.Background()
	c := newIntakeCase(t)
	now := time.Now().UTC()
	petition, err := c.st.Forms.Get(ctx, c.tenant.ID, "petition")
	must(t, err)
	petition.Fields = []tenants.FieldDef{{Name: "street", Type: tenants.FieldText, Personal: true}}
	must(t, c.st.Forms.Save(ctx, petition))
	must(t, c.st.Forms.Insert(ctx, tenants.Form{TenantID: c.tenant.ID, FormID: "later", Name: "Later", Open: true, CreatedAt: now, UpdatedAt: now}))
	first, err := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WaySecretKey,
		Body: body("submission_id", "s1", "street", "Elm Street 1")})
	must(t, err)

	var writing atomic.Bool
	forms := &watchedForms{FormStore: c.st.Forms, writing: &writing}
	writer := &watchedWriter{Writer: c.st.Writer, writing: &writing}
	key := []byte("0123456789abcdef0123456789abcdef")
	persons := ops.New(ops.Config{Tenants: c.st.Tenants, Records: c.st.Records, Forms: forms, Writer: writer,
		Hasher: tenants.NewHasher(key), Now: time.Now, Audit: c.st.Audit}).Persons
	// While the erasure runs, the person signs the other form.
	writer.before = func() {
		if _, err := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WaySecretKey,
			Body: body("submission_id", "s2", "form_id", "later")}); err != nil {
			t.Errorf("the concurrent submission: %v", err)
		}
	}
	ada := ops.Identity{Email: "ada@example.org"}
	_, err = persons.Erase(ctx, c.tenant.ID, "test", "r1", ada)
	var re *tenants.RetryError
	if !errors.As(err, &re) || !errors.Is(err, tenants.ErrUnavailable) || re.After <= 0 {
		t.Fatalf("an erasure meeting a record of a form it did not load = %v, want unavailable with a retry time", err)
	}
	if rec, err := c.st.Records.Get(ctx, c.tenant.ID, tenants.KindFormSubmission, first.ID); err != nil || rec.AnonymisedAt != nil {
		t.Fatalf("the refused erasure changed the first record: %+v, %v", rec.AnonymisedAt, err)
	}
	done, err := persons.Erase(ctx, c.tenant.ID, "test", "r2", ada)
	must(t, err)
	if done.Counts.FormSubmissions != 2 {
		t.Errorf("the repeat erased %+v, want both submissions", done.Counts)
	}
	if n := forms.readsInWrite.Load(); n != 0 {
		t.Errorf("%d forms read while the store wrote the erasure", n)
	}
	rec, err := c.st.Records.Get(ctx, c.tenant.ID, tenants.KindFormSubmission, first.ID)
	must(t, err)
	if rec.AnonymisedAt == nil || rec.Fields["street"] != nil {
		t.Errorf("after the erasure: anonymised %v, street %v", rec.AnonymisedAt, rec.Fields["street"])
	}
}
