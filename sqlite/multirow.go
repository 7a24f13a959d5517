package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The writer's multi-row statements: a batch inserts each table's rows in as few statements as
// SQLite's limit on values allows, each size prepared once.

// eachChunk inserts rows (each the same number of values) with head + "(?, …), …" + tail,
// at most maxParams values per statement, and hands each statement's result rows to scan
// (when given; the tail then has a RETURNING clause).
func (w *Writer) eachChunk(ctx context.Context, tx *sql.Tx, head, tail string, rows [][]any, scan func(*sql.Rows) error) error {
	if len(rows) == 0 {
		return nil
	}
	per := max(1, maxParams/len(rows[0]))
	for len(rows) > 0 {
		chunk := rows[:min(per, len(rows))]
		rows = rows[len(chunk):]
		s, err := w.multiStmt(ctx, tx, head, tail, len(chunk), len(chunk[0]))
		if err != nil {
			return err
		}
		args := make([]any, 0, len(chunk)*len(chunk[0]))
		for _, r := range chunk {
			args = append(args, r...)
		}
		if scan == nil {
			_, err = s.ExecContext(ctx, args...)
		} else {
			var rs *sql.Rows
			if rs, err = s.QueryContext(ctx, args...); err == nil {
				err = scan(rs)
				rs.Close()
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// maxParams bounds the values of one statement (SQLite allows 32,766).
const maxParams = 30000

// multiStmt returns the statement inserting n rows of cols values, bound to tx. The writing
// connection is held by the batch, so a size seen for the first time is prepared in tx only
// and, after the batch, on the database for the next ones (prepareNew); the most used sizes
// stay prepared.
func (w *Writer) multiStmt(ctx context.Context, tx *sql.Tx, head, tail string, n, cols int) (*sql.Stmt, error) {
	row := "(" + placeholders(cols) + ")"
	q := head + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + tail
	if s := w.multi[q]; s != nil {
		return tx.StmtContext(ctx, s), nil
	}
	w.multi[q] = nil
	s, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return s, nil
}

// prepareNew prepares the statements multiStmt met for the first time; the caller holds no
// connection of the writer.
func (w *Writer) prepareNew(ctx context.Context) {
	w.st.cache.prepareWanted(ctx)
	var fresh []string
	for q, s := range w.multi {
		if s == nil {
			fresh = append(fresh, q)
		}
	}
	if len(fresh) == 0 {
		return
	}
	if len(w.multi) > 256 {
		for q, s := range w.multi {
			if s != nil {
				_ = s.Close()
				delete(w.multi, q)
			}
		}
	}
	for _, q := range fresh {
		s, err := w.s.w.PrepareContext(ctx, q)
		if err != nil {
			delete(w.multi, q)
			continue
		}
		w.multi[q] = s
	}
}
