package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// SQLite parses a statement again for every query that is not prepared, and for the short
// reads of a person's operations (a tenant, the records of a person's match keys, a tenant's
// webhook endpoints) the parse costs about what the read does. The statements of those reads
// are prepared once per database handle and kept here, by query text; database/sql prepares
// each on every connection of the pool as it is first used there.

// maxCached bounds the statements one cache keeps: the queries cached have a fixed text or
// one of a few shapes (findRows: the number of keys and kinds), so the bound is only a guard.
const maxCached = 128

// stmtCache is the statements prepared on one database handle.
type stmtCache struct {
	db   *sql.DB
	m    sync.Map // query → *sql.Stmt
	n    atomic.Int64
	want sync.Map // queries a transaction ran unprepared, to prepare once it is over
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db} }

// get returns the statement of q prepared on the cache's database; ok is false when the cache
// is full (the caller then runs q unprepared). Preparing takes a connection of the database:
// a transaction, which holds one (the writing connection is the only one of its pool), finds
// only what is prepared already (lookup) and runs the rest unprepared.
func (c *stmtCache) get(ctx context.Context, q string) (s *sql.Stmt, ok bool, err error) {
	if s, ok := c.lookup(q); ok {
		return s, true, nil
	}
	if c.n.Load() >= maxCached {
		return nil, false, nil
	}
	s, err = c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, false, err
	}
	if v, loaded := c.m.LoadOrStore(q, s); loaded {
		_ = s.Close()
		return v.(*sql.Stmt), true, nil
	}
	c.n.Add(1)
	return s, true, nil
}

// lookup returns the statement of q if it is prepared.
func (c *stmtCache) lookup(q string) (*sql.Stmt, bool) {
	if v, found := c.m.Load(q); found {
		return v.(*sql.Stmt), true
	}
	return nil, false
}

// close closes every statement kept.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.m.Range(func(k, v any) bool {
		_ = v.(*sql.Stmt).Close()
		c.m.Delete(k)
		return true
	})
}

// cachedQuerier runs queries through the statements of cache, on tx when one is given (the
// cache's database must then be the transaction's).
type cachedQuerier struct {
	cache *stmtCache
	tx    *sql.Tx
}

// stmt returns the prepared statement of query for q, ok false when there is none to use.
func (q cachedQuerier) stmt(ctx context.Context, query string) (*sql.Stmt, bool, error) {
	if q.tx != nil {
		s, ok := q.cache.lookup(query)
		if !ok {
			q.cache.want.Store(query, true)
		}
		return s, ok, nil
	}
	return q.cache.get(ctx, query)
}

// prepareWanted prepares the queries transactions ran unprepared; the caller holds no
// connection of the cache's database.
func (c *stmtCache) prepareWanted(ctx context.Context) {
	c.want.Range(func(k, _ any) bool {
		c.want.Delete(k)
		// A failed prepare leaves the query unprepared; its next run reports the error.
		_, _, _ = c.get(ctx, k.(string))
		return true
	})
}

// runner runs a query unprepared: a transaction or a database.
type runner interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// prepared returns the statement that runs query for q (bound to q's transaction), or none
// and the runner that runs it unprepared.
func (q cachedQuerier) prepared(ctx context.Context, query string) (*sql.Stmt, runner, error) {
	var r runner = q.cache.db
	if q.tx != nil {
		r = q.tx
	}
	s, ok, err := q.stmt(ctx, query)
	switch {
	case err != nil || !ok:
		return nil, r, err
	case q.tx != nil:
		return q.tx.StmtContext(ctx, s), r, nil
	default:
		return s, r, nil
	}
}

// QueryContext implements querier.
func (q cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, r, err := q.prepared(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case s == nil:
		return r.QueryContext(ctx, query, args...)
	}
	return s.QueryContext(ctx, args...)
}

// QueryRowContext is QueryContext of one row; a failed prepare is run unprepared, so that the
// row reports it.
func (q cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, r, err := q.prepared(ctx, query)
	if s == nil || err != nil {
		return r.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// ExecContext runs a statement that returns no rows.
func (q cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, r, err := q.prepared(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case s == nil:
		return r.ExecContext(ctx, query, args...)
	}
	return s.ExecContext(ctx, args...)
}
