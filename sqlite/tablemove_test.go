package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestDeliveriesMoveToRowidTable: a delivery log in the shape before migration 00022 (a table
// clustered on endpoint and event) is whole after the move to the rowid table, also when a start
// was stopped after part of the move, and the dispatcher's reads and writes work on it.
func TestDeliveriesMoveToRowidTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	// The log as migration 00005 made it, with three deliveries; the new table as 00022 makes it.
	for _, q := range []string{`DROP TABLE webhook_deliveries`,
		`CREATE TABLE webhook_deliveries (tenant_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, event_id TEXT NOT NULL,
		type TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
		next_at INTEGER NOT NULL, last_at INTEGER, last_result TEXT NOT NULL DEFAULT '', PRIMARY KEY (endpoint_id, event_id)) WITHOUT ROWID`,
		`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending'`,
		`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (tenant_id, endpoint_id, created_at)`,
		`CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)`,
		`CREATE TABLE webhook_deliveries_r (tenant_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, event_id TEXT NOT NULL,
		type TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
		next_at INTEGER NOT NULL, last_at INTEGER, last_result TEXT NOT NULL DEFAULT '')`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i, st := range []string{"pending", "delivered", "pending"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO webhook_deliveries VALUES ('a', 'e1', ?, 'consent.granted', ?, ?, ?, ?, ?, NULL, '')`,
			fmt.Sprint("msg_", i), fmt.Sprintf(`{"n":%d}`, i), ms(t0.Add(time.Duration(i)*time.Second)), st, i, ms(t0.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	s = openAfterOneChunk(t, db, deliveriesMove, dir)
	log, err := s.Outbox.Deliveries(ctx, "a", "e1", 10)
	if err != nil || len(log) != 3 || log[0].EventID != "msg_2" || log[2].Payload != `{"n":0}` || log[1].Status != "delivered" {
		t.Fatalf("log after the move = %+v, %v", log, err)
	}
	due, err := s.Outbox.Due(ctx, t0.Add(time.Minute), 10, nil)
	if err != nil || len(due) != 2 {
		t.Fatalf("Due = %+v, %v", due, err)
	}
	d := due[0]
	d.Status, d.Attempts = tenants.DeliveryDelivered, 1
	if err := s.Outbox.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	if due, _ := s.Outbox.Due(ctx, t0.Add(time.Minute), 10, nil); len(due) != 1 {
		t.Errorf("Due after an update = %+v", due)
	}
	// A delivery written again is kept once: the unique index stands for the primary key.
	if err := s.Outbox.Fan(ctx, []tenants.Fanned{{Event: tenants.OutboxEvent{ID: "msg_1"}, Deliveries: []tenants.Delivery{{EndpointID: "e1",
		EventID: "msg_1", TenantID: "a", Type: "consent.granted", Payload: "{}", CreatedAt: t0.Add(time.Second), Status: "pending", NextAt: t0}}}}); err != nil {
		t.Fatal(err)
	}
	if log, _ := s.Outbox.Deliveries(ctx, "a", "e1", 10); len(log) != 3 {
		t.Errorf("a delivery written again: %d in the log", len(log))
	}
	var schema string
	if err := s.r.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'webhook_deliveries'`).Scan(&schema); err != nil ||
		strings.Contains(schema, "WITHOUT ROWID") {
		t.Errorf("webhook_deliveries = %q, %v; want a rowid table", schema, err)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'webhook_deliveries_r'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("webhook_deliveries_r still there (%d, %v)", n, err)
	}
	// The move's last step builds the indexes a new file has (migrations 00023 and 00024).
	if got, want := indexesOf(t, s, "webhook_deliveries"), indexesOf(t, newFile(t), "webhook_deliveries"); got != want {
		t.Errorf("indexes after the move:\n%s\nwant those of a new file:\n%s", got, want)
	}
}

// newFile opens a store on a new file in a temp dir, migrated from empty.
func newFile(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// indexesOf is the definitions of table's indexes in s, one a line, by name.
func indexesOf(t *testing.T, s *Store, table string) string {
	t.Helper()
	var defs string
	err := s.r.QueryRowContext(context.Background(), `SELECT coalesce(group_concat(sql, char(10)), '') FROM
		(SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name)`, table).Scan(&defs)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// openAfterOneChunk moves one chunk of two rows of m on db (a start stopped part-way), closes
// db and opens the store in dir, which completes the move; the test closes it at its end.
func openAfterOneChunk(t *testing.T, db *sql.DB, m tableMove, dir string) *Store {
	t.Helper()
	ctx := context.Background()
	defer func(n int) { moveChunk = n }(moveChunk)
	moveChunk = 2
	if n, err := m.oneChunk(ctx, db); err != nil || n != 2 {
		t.Fatalf("first chunk: %d, %v", n, err)
	}
	db.Close()
	s, err := Open(ctx, Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	return s
}
