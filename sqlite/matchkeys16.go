package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"log/slog"
)

// key16 is how a match key is stored: the first 16 bytes of the keyed hash (tenants.Hasher:
// 32 bytes, base64url). The hash mixes in the tenant, so 16 bytes of it identify a person in
// a tenant with a chance of collision of 2^-128 per pair, and a collision would only add a
// record to a look-up that the tenant filter of the records keeps within the tenant. A key
// of another form (tests) is hashed to 16 bytes.
func key16(k string) []byte {
	if b, err := base64.RawURLEncoding.DecodeString(k); err == nil && len(b) >= 16 {
		return b[:16]
	}
	h := sha256.Sum256([]byte(k))
	return h[:16]
}

// moveChunk is how many match keys one transaction of the move carries.
var moveChunk = 20000

// moveMatchKeys completes migration 00016: it moves the text match keys into the 16-byte table
// in chunks (each chunk one transaction that inserts them there and deletes them here, so a
// start stopped part-way goes on where it stopped), then drops the old table and renames the
// new one, in one transaction. Nothing to do once the rename is done.
func moveMatchKeys(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'match_keys_b'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	var total int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM match_keys`).Scan(&total); err != nil {
		return fmt.Errorf("move match keys: %w", err)
	}
	if total > 0 {
		slog.Info("moving match keys to 16-byte keys (migration 00016)", "keys", total)
	}
	var moved int64
	for {
		k, err := moveOneChunk(ctx, db)
		if err != nil {
			return fmt.Errorf("move match keys: %w", err)
		}
		if k == 0 {
			break
		}
		moved += int64(k)
		slog.Info("moving match keys", "moved", moved, "of", total)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("move match keys: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DROP TABLE match_keys`, `ALTER TABLE match_keys_b RENAME TO match_keys`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("move match keys: %w", err)
		}
	}
	return tx.Commit()
}

// moveOneChunk moves up to moveChunk keys and returns how many it moved.
func moveOneChunk(ctx context.Context, db *sql.DB) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT tenant_id, key, rid FROM match_keys ORDER BY tenant_id, key, rid LIMIT ?`, moveChunk)
	if err != nil {
		return 0, err
	}
	type row struct {
		tenant, key string
		rid         int64
	}
	var chunk []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.tenant, &r.key, &r.rid); err != nil {
			rows.Close()
			return 0, err
		}
		chunk = append(chunk, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(chunk) == 0 {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO match_keys_b (key, rid) VALUES (?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	for _, r := range chunk {
		if _, err := ins.ExecContext(ctx, key16(r.key), r.rid); err != nil {
			return 0, err
		}
	}
	last := chunk[len(chunk)-1]
	if _, err := tx.ExecContext(ctx, `DELETE FROM match_keys WHERE (tenant_id, key, rid) <= (?, ?, ?)`, last.tenant, last.key, last.rid); err != nil {
		return 0, err
	}
	return len(chunk), tx.Commit()
}
