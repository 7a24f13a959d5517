package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// Erase implements tenants.Writer: one transaction finds the records, strips them, deletes
// their match keys and appends the audit entry; a second erasure waiting for the writing
// connection then finds nothing, so no record is counted twice. After the commit the scrub
// (see scrub.go) runs on the same connection, so that no write slips in between.
func (w *Writer) Erase(ctx context.Context, ch tenants.Change) ([]tenants.Record, error) {
	if none, err := w.nothingToErase(ctx, ch); err != nil || none {
		return nil, err
	}
	defer w.st.cache.prepareWanted(ctx) // once the connection is back (deferred before it)
	conn, err := w.s.w.Conn(ctx)
	if err != nil {
		return nil, translate("erase", err)
	}
	defer conn.Close()
	before, _, err := w.applyChange(ctx, conn, ch)
	if err != nil {
		return nil, err
	}
	if len(before) > 0 || w.scrubPending() {
		w.scrub(ctx, conn, scrubWait)
	}
	return before, nil
}

// nothingToErase reports, from a read snapshot, that ch would change no record: an erasure
// of a person who has no records here (or only erased ones) then takes neither the write
// lock nor a checkpoint, and slows nobody's intake. A record ingested after the snapshot
// was not there when the erasure was asked for. An erasure by match keys looks only for the
// keys (one index lookup each): an erased record has none left, and a record whose mention
// was removed no longer carries that key.
func (w *Writer) nothingToErase(ctx context.Context, ch tenants.Change) (bool, error) {
	if len(ch.RecordIDs) == 0 {
		if len(ch.MatchKeys) == 0 {
			return true, nil
		}
		args := make([]any, len(ch.MatchKeys))
		for i, k := range ch.MatchKeys {
			args[i] = key16(k)
		}
		var found int
		err := cachedQuerier{cache: w.s.rq}.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM match_keys WHERE key IN (`+
			placeholders(len(args))+`))`, args...).Scan(&found)
		return found == 0, translate("find match keys", err)
	}
	rows, err := changeRows(ctx, w.s.r, ch)
	if err != nil {
		return false, err
	}
	for _, row := range rows {
		rec := row.rec
		changed, err := ch.Apply(&rec)
		if err != nil || changed {
			return false, err
		}
	}
	return true, nil
}

// Revoke implements tenants.Writer: one transaction finds, changes and audits.
func (w *Writer) Revoke(ctx context.Context, ch tenants.Change) ([]tenants.Record, error) {
	defer w.st.cache.prepareWanted(ctx)
	conn, err := w.s.w.Conn(ctx)
	if err != nil {
		return nil, translate("revoke", err)
	}
	defer conn.Close()
	_, after, err := w.applyChange(ctx, conn, ch)
	return after, err
}

// applyChange runs ch in one transaction on conn and returns the changed records before and
// after the change.
func (w *Writer) applyChange(ctx context.Context, conn *sql.Conn, ch tenants.Change) (before, after []tenants.Record, err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, translate("begin", err)
	}
	defer func() { _ = tx.Rollback() }()
	st := w.st.in(ctx, tx)
	rows, err := changeRows(ctx, st.q, ch)
	if err != nil {
		return nil, nil, err
	}
	for _, row := range rows {
		rec := row.rec
		changed, err := ch.Apply(&rec)
		if err != nil {
			return nil, nil, err
		}
		if !changed {
			continue
		}
		if err := rewrite(ctx, tx, st, row, rec); err != nil {
			return nil, nil, err
		}
		before, after = append(before, row.rec), append(after, rec)
	}
	if len(after) > 0 {
		if err := appendAudit(ctx, st, ch.Audit(after)); err != nil {
			return nil, nil, err
		}
		if ch.Events != nil {
			if err := insertOutbox(ctx, st.q, ch.Events(after)); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, translate("commit", err)
	}
	return before, after, nil
}

// deleteKey drops one match key of a record (rewrite).
const deleteKey = `DELETE FROM match_keys WHERE key = ? AND rid = ?`

// rewrite stores rec over row and keeps the match key index in step with its match keys. The
// UPDATE sets only the columns whose value changes (and the body): SQLite maintains every
// index on a column the statement sets, and every partial index whose condition names one,
// even where the value stays, and runs the triggers of those columns.
func rewrite(ctx context.Context, tx *sql.Tx, st statements, row recordRow, rec tenants.Record) error {
	d, err := derive(rec)
	if err != nil {
		return err
	}
	old, now := deriveColumns(row.rec).columns(), d.columns()
	var set strings.Builder
	args := make([]any, 0, len(now)+1)
	for i, c := range now {
		if c.name != "body" && c.value == old[i].value {
			continue
		}
		if set.Len() > 0 {
			set.WriteString(", ")
		}
		set.WriteString(c.name + " = ?")
		args = append(args, c.value)
	}
	args = append(args, row.rid)
	if _, err := st.q.ExecContext(ctx, `UPDATE records SET `+set.String()+` WHERE rid = ?`, args...); err != nil {
		return translate("rewrite record", err)
	}
	for _, k := range row.rec.MatchKeys {
		if !slices.Contains(rec.MatchKeys, k) {
			if _, err := st.dropKey.ExecContext(ctx, key16(k), row.rid); err != nil {
				return translate("delete match key", err)
			}
		}
	}
	var added []string
	for _, k := range rec.MatchKeys {
		if !slices.Contains(row.rec.MatchKeys, k) {
			added = append(added, k)
		}
	}
	return insertKeys(ctx, st, row.rid, added)
}

// Expire implements tenants.Writer: due records are read through the next-deadline index and
// changed in transactions of run.Limit records.
func (w *Writer) Expire(ctx context.Context, run tenants.ExpiryRun) (int, error) {
	limit := max(run.Limit, 1)
	total := 0
	for {
		var n, records int
		err := w.inTx(ctx, func(tx *sql.Tx, st statements) error {
			var err error
			n, records, err = expireBatch(ctx, tx, st, run, limit)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if records < limit {
			return total, nil
		}
	}
}

func expireBatch(ctx context.Context, tx *sql.Tx, st statements, run tenants.ExpiryRun, limit int) (expired, records int, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+recordCols+` FROM records WHERE next_deadline <= ?
		ORDER BY next_deadline LIMIT ?`, ms(run.Now), limit)
	if err != nil {
		return 0, 0, translate("due records", err)
	}
	var due []recordRow
	for rows.Next() {
		row, err := scanRecord(rows)
		if err != nil {
			rows.Close()
			return 0, 0, translate("due records", err)
		}
		due = append(due, row)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, translate("due records", err)
	}
	for _, row := range due {
		rec := row.rec
		names := rec.Consents.ExpireDue(run.Now)
		// Rewritten even when nothing expired, so that its next deadline is recomputed.
		if err := rewrite(ctx, tx, st, row, rec); err != nil {
			return 0, 0, err
		}
		if len(names) > 0 {
			if err := appendAudit(ctx, st, run.Audit(rec, names)); err != nil {
				return 0, 0, err
			}
			if run.Events != nil {
				if err := insertOutbox(ctx, st.q, run.Events(rec, names)); err != nil {
					return 0, 0, err
				}
			}
			expired += len(names)
		}
	}
	return expired, len(due), nil
}
