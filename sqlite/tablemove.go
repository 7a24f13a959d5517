package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
)

// moveChunk is how many rows one transaction of a table move carries.
var moveChunk = 20000

// tableMove is the part of a migration that moves a table's rows into a new table at start:
// in chunks, each one transaction that inserts them there and deletes them here, so that a
// start stopped part-way goes on where it stopped; then one transaction drops the old table
// and gives the new one its name (and indexes). Nothing is left to do once that is done.
type tableMove struct {
	what      string // in the log: "match keys"
	migration string
	// to is the new table; while it has that name, the move is not done.
	to string
	// left counts the rows still to move.
	left string
	// chunk moves up to n rows in tx and returns how many.
	chunk func(ctx context.Context, tx *sql.Tx, n int) (int, error)
	// finish are the last transaction's statements.
	finish []string
}

// run completes the move, logging its progress.
func (m tableMove) run(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, m.to).Scan(&n); err != nil || n == 0 {
		return err
	}
	fail := func(err error) error { return fmt.Errorf("move %s (migration %s): %w", m.what, m.migration, err) }
	var total int64
	if err := db.QueryRowContext(ctx, m.left).Scan(&total); err != nil {
		return fail(err)
	}
	if total > 0 {
		slog.Info("moving "+m.what+" (migration "+m.migration+")", "rows", total)
	}
	var moved int64
	for {
		k, err := m.oneChunk(ctx, db)
		if err != nil {
			return fail(err)
		}
		if k == 0 {
			break
		}
		moved += int64(k)
		slog.Info("moving "+m.what, "moved", moved, "of", total)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	for _, q := range m.finish {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fail(err)
		}
	}
	return tx.Commit()
}

func (m tableMove) oneChunk(ctx context.Context, db *sql.DB) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	k, err := m.chunk(ctx, tx, moveChunk)
	if err != nil || k == 0 {
		return 0, err
	}
	return k, tx.Commit()
}

// deliveriesMove completes migration 00022: the delivery log into a rowid table.
var deliveriesMove = tableMove{what: "webhook deliveries", migration: "00022", to: "webhook_deliveries_r",
	left: `SELECT count(*) FROM webhook_deliveries`,
	chunk: func(ctx context.Context, tx *sql.Tx, n int) (int, error) {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries_r (`+deliveryCols+`)
			SELECT `+deliveryCols+` FROM webhook_deliveries ORDER BY endpoint_id, event_id LIMIT ?`, n)
		if err != nil {
			return 0, err
		}
		k, err := res.RowsAffected()
		if err != nil || k == 0 {
			return 0, err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE (endpoint_id, event_id) IN
			(SELECT endpoint_id, event_id FROM webhook_deliveries ORDER BY endpoint_id, event_id LIMIT ?)`, n)
		return int(k), err
	},
	finish: []string{`DROP TABLE webhook_deliveries`, `ALTER TABLE webhook_deliveries_r RENAME TO webhook_deliveries`,
		`CREATE UNIQUE INDEX webhook_deliveries_endpoint ON webhook_deliveries (tenant_id, endpoint_id, created_at, event_id)`,
		`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at, endpoint_id) WHERE status = 'pending'`,
		`CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)`},
}
