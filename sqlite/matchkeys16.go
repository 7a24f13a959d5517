package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
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

// matchKeysMove completes migration 00016: the text match keys into the 16-byte table.
var matchKeysMove = tableMove{what: "match keys", migration: "00016", to: "match_keys_b",
	left:   `SELECT count(*) FROM match_keys`,
	chunk:  moveMatchKeys,
	finish: []string{`DROP TABLE match_keys`, `ALTER TABLE match_keys_b RENAME TO match_keys`},
}

// moveMatchKeys moves up to n keys in tx and returns how many it moved.
func moveMatchKeys(ctx context.Context, tx *sql.Tx, n int) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT tenant_id, key, rid FROM match_keys ORDER BY tenant_id, key, rid LIMIT ?`, n)
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
	_, err = tx.ExecContext(ctx, `DELETE FROM match_keys WHERE (tenant_id, key, rid) <= (?, ?, ?)`, last.tenant, last.key, last.rid)
	return len(chunk), err
}
