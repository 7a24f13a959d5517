// Package sqlite is the embedded store: one SQLite database file in the data dir, used
// directly (modernc.org/sqlite, pure Go), with real indexes and transactions. One connection
// writes, in WAL mode with synchronous=FULL, so a commit is durable at one fsync that a whole
// batch of requests shares; a pool of read-only connections reads without waiting for it.
// Driver errors stop here: they leave as the errors of package tenants.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// FileName is the database file in the data dir; SQLite keeps FileName-wal and -shm beside it.
const FileName = "consentforms.db"

//go:embed migrations/*.sql
var migrations embed.FS

// Config locates the database.
type Config struct {
	Dir string
	// Observer, when set, hears of every batch the writer commits (metrics).
	Observer tenants.Observer
	// FullCheck makes Open check the whole file before it returns even after a clean
	// shutdown (docs/OPERATIONS.md#start-up-checks).
	FullCheck bool
	// Brief is a short command (the CLI's): after a clean shutdown it does not check the file
	// beside itself, and its clean close leaves the marker again, so that a command run while
	// the server is stopped does not cost the next start its check before listening.
	Brief bool
	// OnDamage hears of damage that the check beside a start after a clean shutdown found
	// (the server stops on it); the error wraps ErrDamaged.
	OnDamage func(error)
}

// Store is an open database with its repositories.
type Store struct {
	path string
	// diskProbed is the lastDiskError a write has since proved over.
	diskProbed atomic.Int64
	// checked: the whole file was checked since the start (Close may write the clean marker).
	checked atomic.Bool
	// carried: a Brief store opened after a clean shutdown; its clean close marks it again.
	carried atomic.Bool
	// checking: the check beside the start runs (erasures' scrubs wait for its end).
	checking atomic.Bool
	// damaged is the damage the check beside the start found.
	damaged   atomic.Pointer[error]
	stopCheck context.CancelFunc
	checkDone chan struct{}
	w         *sql.DB    // the one writing connection
	cp        *sql.DB    // the checkpointer's connection (durable.go)
	r         *sql.DB    // read-only connections
	rq        *stmtCache // statements prepared on r (stmtcache.go)

	Tenants *Tenants
	APIKeys *APIKeys
	Forms   *Forms
	// Texts are the forms' published consent text versions.
	Texts  *Texts
	Staff  *Staff
	Tokens *WebhookTokens
	Audit  *Audit
	// AuditChains walks the audit log's hash chains.
	AuditChains *AuditChains
	// WebhookDiag keeps the inbound webhook diagnostics.
	WebhookDiag *WebhookDiag
	// SMS keeps the SMS provider secrets and the inbound messages applied.
	SMS      *SMS
	Records  *Records
	Sessions *Sessions
	Outbox   *Outbox
	Bulk     *Bulk
	// SubjectRequests keeps the data-subject requests.
	SubjectRequests *SubjectRequests
	Writer          *Writer
	Transfer        *Transfer
	// SpentTokens remembers the used confirmation links.
	SpentTokens *SpentTokens
	Challenges  *Challenges
}

// pragmas apply to every connection. busy_timeout lets a second process (the CLI) wait for
// the lock instead of failing; secure_delete zeroes deleted content, so that erased data
// leaves no bytes in the file; temp_store keeps statement journals and temporary indexes in
// memory, where a spill to an unlinked file would cost a system call per page and leave
// copies of records in freed disk blocks.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(on)&_pragma=secure_delete(on)&_pragma=synchronous(full)&_pragma=temp_store(memory)"

// Open opens (creating if needed) the database in cfg.Dir, applies the schema migrations and
// starts the writer. The dir is made 0700 and the files 0600 at every start.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	s := &Store{path: filepath.Join(dir, FileName)}
	if cfg.Observer != nil {
		undecodable.Store(&cfg.Observer)
	}
	// Of processes starting at once, one at a time switches a new file to WAL and migrates:
	// SQLite answers a second connection's switch with SQLITE_BUSY at once, without waiting.
	unlock, err := lockMigrations(dir)
	if err != nil {
		return nil, err
	}
	clean, err := takeCleanMark(s.path)
	if err == nil {
		err = s.openWriter(ctx)
	}
	unlock()
	if err != nil {
		return nil, err
	}
	if !clean || cfg.FullCheck {
		if err := s.quickCheckOn(ctx, s.w); err != nil {
			_ = s.w.Close()
			return nil, err
		}
		s.checked.Store(true)
	}
	if err := restrictFiles(dir); err != nil {
		_ = s.w.Close()
		return nil, err
	}
	s.r, err = sql.Open("sqlite", "file:"+s.path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		_ = s.w.Close()
		return nil, fmt.Errorf("open %s: %w", s.path, err)
	}
	if s.cp, err = sql.Open("sqlite", "file:"+s.path+"?"+pragmas); err != nil {
		_ = s.w.Close()
		_ = s.r.Close()
		return nil, fmt.Errorf("open %s: %w", s.path, err)
	}
	s.cp.SetMaxOpenConns(1)
	n := max(4, 2*runtime.NumCPU())
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	s.rq = newStmtCache(s.r)
	s.repositories()
	if s.Writer, err = newWriter(ctx, s, cfg.Observer); err != nil {
		_ = s.Close(ctx)
		return nil, err
	}
	// A crash between an erasure's commit and its scrub is made good here (or, should a
	// reader hold it up, by the scrubber soon after).
	s.Writer.scrubNow(ctx, startScrubWait)
	switch {
	case s.checked.Load():
	case cfg.Brief:
		s.carried.Store(true)
	default:
		s.checkBeside(cfg.OnDamage)
	}
	return s, nil
}

// repositories sets the store's repositories, each a view of s.
func (s *Store) repositories() {
	s.Tenants = &Tenants{s: s}
	s.APIKeys = &APIKeys{s: s}
	s.Challenges = &Challenges{s: s}
	s.Forms = &Forms{s: s}
	s.Texts = &Texts{s: s}
	s.Staff = &Staff{s: s}
	s.Tokens = &WebhookTokens{s: s}
	s.Audit = &Audit{s: s}
	s.AuditChains = &AuditChains{s: s}
	s.WebhookDiag = &WebhookDiag{s: s}
	s.SMS = &SMS{s: s}
	s.Records = &Records{s: s}
	s.Sessions = &Sessions{s: s}
	s.Outbox = &Outbox{s: s}
	s.Bulk = &Bulk{s: s}
	s.SubjectRequests = &SubjectRequests{s: s}
	s.Transfer = &Transfer{s: s}
	s.SpentTokens = &SpentTokens{s: s}
}

// openWriter opens the write pool, switches the file to WAL and applies the migrations; the
// caller holds the migrations lock.
func (s *Store) openWriter(ctx context.Context) error {
	// The write pool: one connection; transactions take the write lock at BEGIN, so that two
	// processes never both hold a read lock while waiting to write.
	// A log that grew in a burst is cut back to 64 MiB when it is next reused.
	var err error
	s.w, err = sql.Open("sqlite", "file:"+s.path+"?"+pragmas+"&_pragma=journal_mode(wal)&_pragma=journal_size_limit(67108864)&_pragma=wal_autocheckpoint(0)&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	if err := s.w.PingContext(ctx); err != nil {
		_ = s.w.Close()
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	if err := migrate(ctx, s.w); err != nil {
		_ = s.w.Close()
		return err
	}
	for _, m := range []tableMove{matchKeysMove, deliveriesMove} {
		if err := m.run(ctx, s.w); err != nil {
			_ = s.w.Close()
			return err
		}
	}
	return nil
}

// quickCheckOn refuses a damaged database: PRAGMA quick_check reads every page of every
// table and index (linear in the file's size; docs/OPERATIONS.md#start-up-checks) and finds
// damaged pages, which would otherwise make records vanish silently. It runs at start, or
// beside the running store after a clean shutdown.
func (s *Store) quickCheckOn(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the database %s cannot be checked (%v): it is %w or not a consentforms database; "+
			"restore it from a backup (docs/OPERATIONS.md#backup-and-restore)", s.path, err, ErrDamaged)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check %s: %w", s.path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the database %s is %w (%v): restore it from a backup (docs/OPERATIONS.md#backup-and-restore)", s.path, ErrDamaged, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the database %s is %w; the server will not start on it. Restore it from a backup "+
			"(docs/OPERATIONS.md#backup-and-restore). SQLite's quick_check found: %s", s.path, ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// Stores returns the store as the domain's set of repositories.
func (s *Store) Stores() tenants.Stores {
	return tenants.Stores{Outbox: s.Outbox, Bulk: s.Bulk, Tenants: s.Tenants, APIKeys: s.APIKeys, Forms: s.Forms, Texts: s.Texts, Staff: s.Staff, Tokens: s.Tokens,
		Audit: s.Audit, AuditChains: s.AuditChains, WebhookDiag: s.WebhookDiag, SMS: s.SMS, Records: s.Records, Sessions: s.Sessions, MatchKeys: s.Writer, Writer: s.Writer, Transfer: s.Transfer, SpentTokens: s.SpentTokens, Ping: s.Ping, Close: s.Close,
		Challenges: s.Challenges, SubjectRequests: s.SubjectRequests}
}

// Ping checks that the database answers. After a write failed for want of disk it reports the
// database unavailable (not ready) for diskQuiet, then until a write succeeds again (a no-op
// rewrite of one row, committed), so that a server on a full disk is taken out of rotation
// until it can store again.
func (s *Store) Ping(ctx context.Context) error {
	if d := s.damaged.Load(); d != nil {
		return &tenants.StoreError{Op: "ping", Err: fmt.Errorf("%w: %w", tenants.ErrUnavailable, *d)}
	}
	var one int
	if err := translate("ping", s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one)); err != nil {
		return err
	}
	seen := lastDiskError.Load()
	if seen == s.diskProbed.Load() {
		return nil
	}
	if time.Since(time.Unix(0, seen)) < diskQuiet {
		return &tenants.StoreError{Op: "ping", Err: fmt.Errorf("%w: a write failed for want of disk", tenants.ErrUnavailable)}
	}
	_, err := s.w.ExecContext(ctx, `UPDATE goose_db_version SET tstamp = tstamp WHERE id = (SELECT max(id) FROM goose_db_version)`)
	if err := translate("write probe", err); err != nil {
		return err
	}
	s.diskProbed.Store(seen)
	return nil
}

// Close finishes queued writes and closes the database. When the whole file was checked
// since the start and the last connection closed cleanly, it leaves the clean-shutdown
// marker that lets the next start skip the wait for the check.
func (s *Store) Close(ctx context.Context) error {
	if s.stopCheck != nil {
		s.stopCheck()
		<-s.checkDone
	}
	if s.Writer != nil {
		s.Writer.close()
	}
	var errs []error
	if s.r != nil {
		s.rq.close()
		errs = append(errs, s.r.Close())
	}
	if s.cp != nil {
		errs = append(errs, s.cp.Close())
	}
	errs = append(errs, s.w.Close())
	if s.Writer != nil {
		s.Writer.cp.closeIndex() // after the connections: see logIndexes
	}
	err := errors.Join(errs...)
	if err == nil && (s.checked.Load() || s.carried.Load()) && s.damaged.Load() == nil {
		if err := writeCleanMark(s.path); err != nil {
			slog.Warn("clean-shutdown marker not written; the next start checks the whole database first", "err", err.Error())
		}
	}
	return err
}

// prepareDir creates the data dir 0700 (tightening an existing one) and refuses a dir that
// holds the earlier embedded store's files, which this version cannot read.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("data dir mode: %w", err)
	}
	if old := legacyFiles(dir); len(old) > 0 {
		return fmt.Errorf("the data dir %s holds data of an earlier consentforms version (FerretDB files %s), "+
			"which this version cannot read; move them away or use another CONSENTFORMS_DATA_DIR", dir, strings.Join(old, ", "))
	}
	// Create the file 0600 before SQLite does (it would use 0644); SQLite creates the WAL and
	// shared-memory files with the database file's mode. An existing file is never opened
	// here: closing a descriptor of it would drop the POSIX locks that SQLite holds on it in
	// this process (another store open on the same dir, as the CLI beside a server).
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	return f.Close()
}

// legacyFiles lists the FerretDB database files of the earlier embedded store in dir.
func legacyFiles(dir string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	var out []string
	for _, m := range matches {
		db, err := sql.Open("sqlite", "file:"+m+"?mode=ro")
		if err != nil {
			continue
		}
		var n int
		err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE '\_ferretdb\_%' ESCAPE '\'`).Scan(&n)
		_ = db.Close()
		if err == nil && n > 0 {
			out = append(out, filepath.Base(m))
		}
	}
	return out
}

// restrictFiles makes every file of the database 0600, also when they existed before.
func restrictFiles(dir string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Chmod(filepath.Join(dir, FileName+suffix), 0o600)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("database file mode: %w", err)
		}
	}
	return nil
}

// migrate applies the embedded schema migrations that are not applied yet.
func migrate(ctx context.Context, db *sql.DB) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	// A database with every migration applied, the usual start and every CLI command, costs one
	// read of the version table: goose's Status and Up each read it again and more (about a
	// third of the CPU of opening a store). HasPending also reports a migration missing below the
	// applied ones, which Up refuses as well.
	if pending, err := p.HasPending(ctx); err == nil && !pending {
		return nil
	}
	// On a database that holds data, say what is applied: a migration that rebuilds an index
	// or fills a table from the records takes seconds per million records (docs/STORAGE.md).
	// Each migration is one transaction: a start stopped during one applies it again whole.
	current, _ := p.GetDBVersion(ctx)
	if current > 0 {
		if st, err := p.Status(ctx); err == nil {
			var pending []int64
			for _, m := range st {
				if m.State == goose.StatePending {
					pending = append(pending, m.Source.Version)
				}
			}
			if len(pending) > 0 {
				slog.Info("applying schema migrations", "from", current, "pending", fmt.Sprint(pending))
			}
		}
	}
	res, err := p.Up(ctx)
	if err != nil {
		// Another process may have applied a migration between our version check and our
		// transaction (which then fails, adding a column twice): the second try sees it applied.
		if res, err = p.Up(ctx); err != nil {
			return fmt.Errorf("apply migrations: %w", err)
		}
	}
	if current > 0 {
		for _, r := range res {
			slog.Info("applied schema migration", "version", r.Source.Version, "took", r.Duration.Round(time.Millisecond).String())
		}
	}
	return nil
}
