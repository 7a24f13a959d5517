package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/consentforms/consentforms/mongo"
	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
)

// Config is the process configuration, read from the environment (docs/API.md §10).
type Config struct {
	Addr          string
	MongoURI      string
	Database      string
	DataDir       string
	SecretsFile   string
	HMACKey       string // base64; with SessionKey, replaces the secrets file
	SessionKey    string
	AdminEmail    string
	AdminPassword string
	PprofAddr     string // Go profiler listener; empty = off
	// RetentionEvery is how often the retention job runs, a Go duration ("10m"); "0" = never.
	RetentionEvery string
}

func configFrom(getenv func(string) string) Config {
	or := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	dir := or("CONSENTFORMS_DATA_DIR", "./data")
	return Config{
		Addr:           or("CONSENTFORMS_ADDR", ":8080"),
		MongoURI:       getenv("MONGODB_URI"),
		Database:       or("MONGODB_DATABASE", "consentforms"),
		DataDir:        dir,
		SecretsFile:    or("CONSENTFORMS_SECRETS_FILE", filepath.Join(dir, "secrets.json")),
		HMACKey:        getenv("CONSENTFORMS_HMAC_KEY"),
		SessionKey:     getenv("CONSENTFORMS_SESSION_KEY"),
		AdminEmail:     getenv("CONSENTFORMS_ADMIN_EMAIL"),
		AdminPassword:  getenv("CONSENTFORMS_ADMIN_PASSWORD"),
		PprofAddr:      getenv("CONSENTFORMS_PPROF_ADDR"),
		RetentionEvery: getenv("CONSENTFORMS_RETENTION_EVERY"),
	}
}

// openStore opens the configured database: MongoDB when MONGODB_URI is set, else the
// embedded SQLite store in the data dir.
func openStore(ctx context.Context, cfg Config) (tenants.Stores, error) {
	if cfg.MongoURI != "" {
		return openMongo(ctx, cfg)
	}
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: cfg.DataDir})
	if err != nil {
		return tenants.Stores{}, err
	}
	return s.Stores(), nil
}

func openMongo(ctx context.Context, cfg Config) (tenants.Stores, error) {
	s, err := mongo.Open(ctx, mongo.Config{URI: cfg.MongoURI, Database: cfg.Database})
	if err != nil {
		return tenants.Stores{}, err
	}
	return s.Stores(), nil
}

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// run dispatches the command line: no arguments or "serve" runs the server.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg := configFrom(getenv)
	if len(args) == 0 || args[0] == "serve" {
		return serve(ctx, cfg, stdout, stderr)
	}
	switch args[0] {
	case "export":
		return export(ctx, cfg, args[1:], stdout, stderr)
	case "import":
		return importData(ctx, cfg, args[1:], stdout, stderr)
	}
	if len(args) < 2 {
		return fmt.Errorf("usage: consentforms [serve] | export [--out FILE] | import [--in FILE] [--merge] | tenant|key|form|staff|token create [flags] | key revoke | tenant set-sendgrid-key [flags]")
	}
	return cli(ctx, cfg, args, stdout)
}
