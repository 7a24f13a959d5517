// Package mongo holds the repositories, one per collection, over MongoDB or the embedded
// FerretDB store. Driver errors stop here: they leave as the errors of package tenants.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Config selects the database.
type Config struct {
	URI      string // external MongoDB; empty = embedded store in DataDir
	Database string
	DataDir  string
	// Shared lets a second process (the CLI) use the store of a server already running on DataDir.
	Shared bool
}

// Store is an open database with its repositories.
type Store struct {
	client   *mongo.Client
	db       *mongo.Database
	embedded *Embedded // nil on MongoDB or when sharing a running server's store
	// onEmbedded is true on the embedded store, in this process or a running server's.
	onEmbedded bool

	Tenants  *Tenants
	APIKeys  *APIKeys
	Forms    *Forms
	Staff    *Staff
	Audit    *Audit
	Settings *Settings
	Records  *Records
	People   *People
	Erasures *Erasures
	Expiries *Expiries
	Tokens   *WebhookTokens
}

// Embedded reports whether the store runs in this process.
func (s *Store) Embedded() bool { return s.embedded != nil }

// Open connects to MongoDB, to a running server's embedded store (cfg.Shared), or starts
// the embedded store, and ensures collections and indexes.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	s := &Store{}
	uri := cfg.URI
	switch {
	case uri != "":
	case cfg.Shared && SocketAlive(cfg.DataDir):
		uri = SocketURI(cfg.DataDir)
		s.onEmbedded = true
	default:
		e, err := StartEmbedded(ctx, cfg.DataDir, cfg.Database)
		if err != nil {
			return nil, err
		}
		s.embedded = e
		s.onEmbedded = true
		uri = e.URI()
	}
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(5 * time.Second).
		SetConnectTimeout(5 * time.Second).
		SetBSONOptions(&options.BSONOptions{DefaultDocumentMap: true})
	client, err := mongo.Connect(opts)
	if err != nil {
		s.closeEmbedded()
		return nil, fmt.Errorf("connect: %w", err)
	}
	s.client = client
	s.db = client.Database(cfg.Database)
	if err := s.Ping(ctx); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	if err := s.ensure(ctx); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx, nil); err != nil {
		return fmt.Errorf("%w: %v", errUnavailable, err)
	}
	return nil
}

// Close disconnects and stops the embedded store.
func (s *Store) Close(ctx context.Context) error {
	var err error
	if s.client != nil {
		err = s.client.Disconnect(ctx)
	}
	s.closeEmbedded()
	return err
}

func (s *Store) closeEmbedded() {
	if s.embedded != nil {
		s.embedded.Close()
		s.embedded = nil
	}
}

// Scrub makes erased data unrecoverable from the embedded store's files (WAL checkpoint;
// secure_delete already zeroes freed content). On MongoDB it does nothing: there the
// storage engine's files are the operator's to manage.
func (s *Store) Scrub(ctx context.Context) error {
	if s.embedded == nil {
		return nil
	}
	return s.embedded.Checkpoint(ctx)
}

// indexSpec is one secondary index; unique ones are created on every store, the others only
// on MongoDB, because the embedded store uses none for reads and each costs writes.
type indexSpec struct {
	keys   bson.D
	unique bool
}

func (s *Store) ensure(ctx context.Context) error {
	s.Tenants = &Tenants{c: s.db.Collection("tenants")}
	s.APIKeys = &APIKeys{c: s.db.Collection("apikeys")}
	s.Forms = &Forms{c: s.db.Collection("forms")}
	s.Staff = &Staff{c: s.db.Collection("staff")}
	s.Audit = &Audit{c: s.db.Collection("audit")}
	s.Settings = &Settings{c: s.db.Collection("settings")}
	s.People = &People{c: s.db.Collection("people")}
	s.Erasures = &Erasures{c: s.db.Collection("erasures")}
	s.Expiries = &Expiries{c: s.db.Collection("expiries")}
	s.Tokens = &WebhookTokens{c: s.db.Collection("webhooktokens")}
	s.Records = newRecords(s.db)

	tenantTime := func(f string) indexSpec {
		return indexSpec{keys: bson.D{{Key: "tenantId", Value: 1}, {Key: f, Value: -1}}}
	}
	specs := map[string][]indexSpec{
		"tenants":       {{keys: bson.D{{Key: "createdAt", Value: -1}}}},
		"apikeys":       {tenantTime("createdAt")},
		"forms":         {{keys: bson.D{{Key: "tenantId", Value: 1}, {Key: "formId", Value: 1}}, unique: true}},
		"staff":         {{keys: bson.D{{Key: "email", Value: 1}}, unique: true}, tenantTime("createdAt")},
		"audit":         {{keys: bson.D{{Key: "tenantIds", Value: 1}, {Key: "entries.time", Value: -1}}}},
		"settings":      nil,
		"people":        nil,
		"erasures":      nil,
		"expiries":      nil,
		"counters":      nil,
		"webhooktokens": {tenantTime("createdAt")},
	}
	for _, name := range recordCollections {
		specs[name] = []indexSpec{
			tenantTime("createdAt"),
			{keys: bson.D{{Key: "tenantId", Value: 1}, {Key: "formId", Value: 1}, {Key: "createdAt", Value: -1}}},
			{keys: bson.D{{Key: "tenantId", Value: 1}, {Key: "matchKeys", Value: 1}}},
		}
	}
	existing, err := s.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return translate("list collections", err)
	}
	have := map[string]bool{}
	for _, n := range existing {
		have[n] = true
	}
	for name, idx := range specs {
		if !have[name] {
			if err := s.db.CreateCollection(ctx, name); err != nil && !isNamespaceExists(err) {
				return translate("create collection "+name, err)
			}
		}
		var models []mongo.IndexModel
		for _, ix := range idx {
			if s.onEmbedded && !ix.unique {
				continue
			}
			m := mongo.IndexModel{Keys: ix.keys}
			if ix.unique {
				m.Options = options.Index().SetUnique(true)
			}
			models = append(models, m)
		}
		if len(models) > 0 {
			if _, err := s.db.Collection(name).Indexes().CreateMany(ctx, models); err != nil {
				return translate("create indexes on "+name, err)
			}
		}
	}
	if s.embedded != nil {
		if err := s.embedded.FixIDIndexes(ctx); err != nil {
			return err
		}
		// A crash between an erasure and its checkpoint is cleaned up here.
		return s.embedded.Checkpoint(ctx)
	}
	return nil
}

func isNamespaceExists(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 48
}

// errUnavailable marks errors that mean the database cannot be reached.
var errUnavailable = errors.New("database unavailable")
