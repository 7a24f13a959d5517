package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestQuietLogNotRestarted: in a quiet store the checkpointer leaves a short log alone, so
// that the next commit appends to it instead of starting it again (which costs that commit a
// second fsync, of the log's new header); once checkpointFrames pages wait, it copies them.
func TestQuietLogNotRestarted(t *testing.T) {
	ctx := context.Background()
	s := newFile(t)
	ingest := func(id string, size int) {
		rec := tenants.Record{ID: tenants.RecordID("a", tenants.KindFormSubmission, id), TenantID: "a",
			Kind: tenants.KindFormSubmission, PublicID: id, CreatedAt: time.Now(), MatchKeys: []string{"k" + id},
			Payload: map[string]any{"note": strings.Repeat("n", size)}}
		if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: rec}); err != nil {
			t.Fatal(err)
		}
	}
	ingest("first", 10)
	time.Sleep(3 * checkpointEvery)
	f1, c1, ok := s.Writer.cp.logState()
	if !ok || f1 == 0 || c1 == f1 {
		t.Fatalf("after a quiet %v the log holds %d pages, %d copied (read %v): want a short log left alone", 3*checkpointEvery, f1, c1, ok)
	}
	ingest("second", 10)
	if f2, _, _ := s.Writer.cp.logState(); f2 <= f1 {
		t.Fatalf("the next commit started the log again (%d pages, before %d)", f2, f1)
	}

	for i := 0; ; i++ {
		ingest(fmt.Sprint("big", i), 30000) // several overflow pages each
		if frames, _, _ := s.Writer.cp.logState(); frames >= checkpointFrames {
			break
		}
		if i == 1000 {
			t.Fatal("the log never reached checkpointFrames pages")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		frames, copied, _ := s.Writer.cp.logState()
		if frames >= checkpointFrames && copied == frames {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after %d pages were written, %d are copied", frames, copied)
		}
		time.Sleep(checkpointEvery / 2)
	}
}

// TestLogIndexKeptWhileAStoreUsesIt: two stores of one process on one file share the log
// index's descriptor; closing one of them, even twice, leaves it open for the other (closing
// it would drop SQLite's locks on the index for the whole process).
func TestLogIndexKeptWhileAStoreUsesIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if _, _, ok := a.Writer.cp.logState(); !ok {
		t.Fatal("the log index cannot be read")
	}
	_ = a.Close(ctx)
	_ = a.Close(ctx)
	logIndexes.Lock()
	x := logIndexes.m[b.path]
	logIndexes.Unlock()
	if x == nil || x.stores != 1 {
		t.Fatalf("after one of two stores closed (twice), the index is kept for %+v stores, want 1", x)
	}
	if _, _, ok := b.Writer.cp.logState(); !ok {
		t.Fatal("the other store can no longer read the log index")
	}
	if f := x.files[len(x.files)-1]; f.Fd() == ^uintptr(0) {
		t.Fatal("the index's descriptor was closed while a store uses it")
	}
}
