package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// translate turns a driver error into the domain's: no rows → ErrNotFound, a unique or
// primary key violation → ErrConflict, the rest wrapped with op. Messages never carry values:
// SQLite's name only columns.
func translate(op string, err error) error {
	var se *sqlite.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return tenants.ErrNotFound
	case errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY):
		return tenants.ErrConflict
	default:
		return &tenants.StoreError{Op: op, Err: err}
	}
}

// ms is a time as stored: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// msPtr is a nullable time as stored.
func msPtr(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromMS reads a stored time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// fromNullMS reads a stored nullable time.
func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
