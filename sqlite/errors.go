package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
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
	case errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_FULL || se.Code()&0xff == sqlite3.SQLITE_IOERR):
		// A full disk (or a file size limit, or a failing one): nothing of the statement was
		// written, and a retry may succeed once there is room; answered 503 with Retry-After.
		// Store.Ping reports not ready until a write succeeds again.
		lastDiskError.Store(time.Now().UnixNano())
		return &tenants.StoreError{Op: op, Err: fmt.Errorf("%w: disk full or failing: %w", tenants.ErrUnavailable, err)}
	default:
		return &tenants.StoreError{Op: op, Err: err}
	}
}

// lastDiskError is when a write last failed for want of disk (Unix ns, any store of the
// process; 0 = never): Store.Ping reports not ready for a while after, and then until a write
// succeeds again.
var lastDiskError atomic.Int64

// diskQuiet is how long after a write failed for want of disk the store reports not ready
// before it tries a write again: while writes keep failing it stays not ready.
const diskQuiet = 5 * time.Second

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
