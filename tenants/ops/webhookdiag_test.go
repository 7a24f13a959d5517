package ops_test

import (
	"context"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// heldAdd is a real store's diagnostics whose writes wait, once entered, until released: the
// moment a flush has taken the pending deliveries and not yet written them.
type heldAdd struct {
	tenants.WebhookDiagRepo
	entered, release chan struct{}
}

func (h heldAdd) Add(ctx context.Context, deltas []tenants.WebhookDelta, keepFrom string) error {
	close(h.entered)
	<-h.release
	return h.WebhookDiagRepo.Add(ctx, deltas, keepFrom)
}

// TestWebhookDiagnosticsReadDuringFlush: a delivery read while the flush that writes it to the
// store runs is counted once. The admin's "Send test" reads the page right after the
// delivery; before, a read that fell between the flush taking the delivery from memory and
// writing it saw "None yet" (seen on the MongoDB stand-in, whose write is the slower).
func TestWebhookDiagnosticsReadDuringFlush(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	repo := heldAdd{WebhookDiagRepo: s.WebhookDiag, entered: make(chan struct{}), release: make(chan struct{})}
	now := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	d := &ops.WebhookDiagnostics{Repo: repo, Now: func() time.Time { return now }}
	d.Delivered("t1", "vonage", 1, 0)

	flushed := make(chan error, 1)
	go func() { flushed <- d.Flush(ctx) }()
	<-repo.entered
	type answer struct {
		stats []tenants.WebhookStats
		err   error
	}
	read := make(chan answer, 1)
	go func() {
		st, err := d.Stats(ctx, "t1")
		read <- answer{st, err}
	}()
	// A read that answers while the write is held saw neither the store nor memory holding
	// the delivery. Waiting a moment only gives such a read the time to show itself; the
	// correct read waits for the flush, so no wait makes this test fail on correct code.
	select {
	case a := <-read:
		read <- a
	case <-time.After(200 * time.Millisecond):
	}
	close(repo.release)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	a := <-read
	if a.err != nil {
		t.Fatal(a.err)
	}
	if len(a.stats) != 1 || !a.stats[0].LastDelivery.Equal(now) || len(a.stats[0].Days) != 1 || a.stats[0].Days[0].Accepted != 1 {
		t.Errorf("stats read during the flush = %+v, want the one delivery counted once", a.stats)
	}
	// And after it, from the store alone.
	after, err := d.Stats(ctx, "t1")
	if err != nil || len(after) != 1 || after[0].Days[0].Accepted != 1 {
		t.Errorf("stats after the flush = %+v, %v", after, err)
	}
}
