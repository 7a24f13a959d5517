// Package mongo is the MongoDB store: one repository per collection, the tenant id first in
// every filter and every compound index, and a writer whose multi-document writes need no
// transaction (MongoDB has them on replica sets only): each is ordered so that a repeat
// completes it. A person is found through a multikey index over the match keys the records
// carry; there are no per-person documents. Driver errors stop here: they leave as the errors
// of package tenants.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Config locates the database.
type Config struct {
	URI      string // mongodb://… or mongodb+srv://…
	Database string
	// Observer, when set, hears of every batch the writer commits (metrics).
	Observer tenants.Observer
	// TrustSchema takes a database whose recorded schema fingerprint is this code's as
	// complete (ensureSchema): a CLI command's start reads one document instead of listing
	// every collection's indexes. The server's start leaves it false.
	TrustSchema bool
	// monitor, set by tests only, sees every command sent.
	monitor *event.CommandMonitor
}

// selectionTimeout bounds how long an operation waits for a server that does not answer:
// a database that goes away is reported unavailable within seconds, and the driver
// reconnects on its own when it returns.
const selectionTimeout = 5 * time.Second

// Store is an open database with its repositories.
type Store struct {
	client *mongo.Client
	db     *mongo.Database
	// now is the clock of erasure claims; tests move it past the claim lease.
	now func() time.Time
	// hooks stop an erasure between its steps, as a crash would; tests only.
	hooks  eraseHooks
	seq    sequence
	claims *claims

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
	Leases          *Leases
	// SpentTokens remembers the used confirmation links.
	SpentTokens *SpentTokens
	Challenges  *Challenges
}

// Open connects, checks that the server answers, creates the collections and indexes that
// are missing and starts the writer.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URI == "" || cfg.Database == "" {
		return nil, errors.New("open mongo: the URI and the database name are required")
	}
	journaled := true
	opts := options.Client().ApplyURI(cfg.URI).
		SetServerSelectionTimeout(selectionTimeout).
		SetConnectTimeout(selectionTimeout).
		// A 2xx means durably stored: a write is acknowledged once a majority of the replica
		// set has it in its journal, so a failover cannot roll it back. Reads see majority-
		// committed data only (what a retry or another instance acts on survives a failover),
		// and primary reads see this process's acknowledged writes at once. Set here, after
		// the URI, so that a connection string cannot weaken them.
		SetWriteConcern(&writeconcern.WriteConcern{W: writeconcern.WCMajority, Journal: &journaled}).
		SetReadConcern(readconcern.Majority()).
		SetReadPreference(readpref.Primary())
	if cfg.monitor != nil {
		opts.SetMonitor(cfg.monitor)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("open mongo: %w", err)
	}
	s := &Store{client: client, db: client.Database(cfg.Database), now: time.Now}
	s.Tenants = &Tenants{c: s.db.Collection(colTenants)}
	s.APIKeys = &APIKeys{c: s.db.Collection(colAPIKeys)}
	s.Challenges = &Challenges{c: s.db.Collection(colChallenges)}
	s.Forms = &Forms{c: s.db.Collection(colForms)}
	s.Texts = &Texts{c: s.db.Collection(colTexts)}
	s.Staff = &Staff{c: s.db.Collection(colStaff)}
	s.Sessions = &Sessions{c: s.db.Collection(colSessions)}
	s.Bulk = &Bulk{c: s.db.Collection(colBulk)}
	s.SubjectRequests = &SubjectRequests{c: s.db.Collection(colSubjectRequests)}
	s.Tokens = &WebhookTokens{c: s.db.Collection(colTokens)}
	s.Audit = &Audit{c: s.db.Collection(colAudit), seq: &s.seq}
	s.Audit.chains = &chains{links: s.db.Collection(colAuditLinks), audit: s.Audit, mine: map[string]tenants.ChainHead{}}
	s.WebhookDiag = &WebhookDiag{diag: s.db.Collection(colWebhookDiag), days: s.db.Collection(colWebhookDays)}
	s.SMS = &SMS{secrets: s.db.Collection(colSMSSecrets), messages: s.db.Collection(colSMSMessages), numbers: s.db.Collection(colSMSNumbers)}
	s.AuditChains = &AuditChains{chains: s.Audit.chains, verifications: s.db.Collection(colAuditVerifications)}
	s.Records = newRecords(s.db)
	s.claims = &claims{c: s.db.Collection(colClaims)}
	s.Transfer = &Transfer{s: s}
	s.SpentTokens = &SpentTokens{c: s.db.Collection(colSpentTokens)}
	s.Leases = &Leases{c: s.db.Collection(colLeases), now: func() time.Time { return s.now() }}
	if err := s.Ping(ctx); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := ensureSchema(ctx, s.db, cfg.TrustSchema); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, err
	}
	s.Outbox = newOutbox(s.db)
	s.Writer = newWriter(s, cfg.Observer)
	return s, nil
}

// Stores returns the store as the domain's set of repositories.
func (s *Store) Stores() tenants.Stores {
	return tenants.Stores{Outbox: s.Outbox, Bulk: s.Bulk, SubjectRequests: s.SubjectRequests, Tenants: s.Tenants, APIKeys: s.APIKeys, Forms: s.Forms, Texts: s.Texts, Staff: s.Staff, Tokens: s.Tokens,
		Audit: s.Audit, AuditChains: s.AuditChains, WebhookDiag: s.WebhookDiag, SMS: s.SMS, Records: s.Records, Sessions: s.Sessions, MatchKeys: s.Records, Writer: s.Writer, Transfer: s.Transfer, SpentTokens: s.SpentTokens, Leases: s.Leases, Ping: s.Ping, Close: s.Close,
		Challenges: s.Challenges}
}

// Ping checks that the primary answers; an error wraps tenants.ErrUnavailable unless ctx
// itself ended first.
func (s *Store) Ping(ctx context.Context) error {
	err := s.client.Ping(ctx, readpref.Primary())
	if err == nil {
		return nil
	}
	if ctx.Err() == nil {
		// Whatever the cause, a server that does not answer a ping is not available.
		return fmt.Errorf("ping: %w (%w)", tenants.ErrUnavailable, err)
	}
	return translate("ping", err)
}

// Close finishes queued writes and disconnects.
func (s *Store) Close(ctx context.Context) error {
	if s.Writer != nil {
		s.Writer.close()
	}
	if s.Outbox != nil {
		s.Outbox.outcomes.Close()
	}
	return translate("disconnect", s.client.Disconnect(ctx))
}
