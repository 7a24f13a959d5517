package mongo

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/event"
)

// TestIngestRoundTrips: what one submission costs in database commands, the record with its
// one audit entry (docs/SCALING.md): alone, and in a batch of concurrent ones, where the
// batch shares each command.
func TestIngestRoundTrips(t *testing.T) {
	cmds := &commandCounts{n: map[string]int{}}
	s, err := Open(ctx, Config{URI: server.URI(), Database: freshDB(t), monitor: cmds.monitor()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	take := cmds.take
	submit := func(id string) {
		r := person("a", tenants.KindFormSubmission, id, "k-"+id)
		stored, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{{
			Time: r.CreatedAt, TenantID: "a", Actor: "key:k1", Action: tenants.ActionConsentGranted, RecordIDs: []string{id}}}})
		if err != nil || !stored {
			t.Errorf("ingest %s: %v %v", id, stored, err)
		}
	}
	submit("first") // the tenant's chain end is read once
	take()
	submit("second")
	alone, detail := take()
	t.Logf("one submission alone: %d commands (%s)", alone, detail)
	if alone > 4 {
		t.Errorf("one submission alone took %d commands (%s), want at most 4: the record, the chain's link, the entry, the link completed", alone, detail)
	}
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { submit(fmt.Sprintf("c%d", i)) })
	}
	wg.Wait()
	together, detail := take()
	t.Logf("%d concurrent submissions: %d commands, %.2f per submission (%s)", n, together, float64(together)/n, detail)
	if together > n*alone/2 {
		t.Errorf("%d concurrent submissions took %d commands: batches do not share them", n, together)
	}
}

// commandCounts counts the commands a store sends, by name.
type commandCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// monitor is the command monitor that counts.
func (c *commandCounts) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n[e.CommandName]++
	}}
}

// take returns the commands counted since the last take, in all and by name, and starts again.
func (c *commandCounts) take() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	var names []string
	for k, v := range c.n {
		n += v
		names = append(names, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(names)
	clear(c.n)
	return n, strings.Join(names, ", ")
}
