package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/consentforms/consentforms/mongo"
)

// Config is the process configuration, read from the environment (CONTRACT.md §10).
type Config struct {
	Addr          string
	MongoURI      string
	Database      string
	DataDir       string
	AdminEmail    string
	AdminPassword string
}

func configFrom(getenv func(string) string) Config {
	or := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	return Config{
		Addr:          or("CONSENTFORMS_ADDR", ":8080"),
		MongoURI:      getenv("MONGODB_URI"),
		Database:      or("MONGODB_DATABASE", "consentforms"),
		DataDir:       or("CONSENTFORMS_DATA_DIR", "./data"),
		AdminEmail:    getenv("CONSENTFORMS_ADMIN_EMAIL"),
		AdminPassword: getenv("CONSENTFORMS_ADMIN_PASSWORD"),
	}
}

// openStore opens the configured database; shared lets the CLI use a running server's
// embedded store through its socket.
func openStore(ctx context.Context, cfg Config, shared bool) (*mongo.Store, error) {
	return mongo.Open(ctx, mongo.Config{URI: cfg.MongoURI, Database: cfg.Database, DataDir: cfg.DataDir, Shared: shared})
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
	if len(args) < 2 {
		return fmt.Errorf("usage: consentforms [serve] | tenant|key|form|staff|token create [flags] | key revoke | tenant set-sendgrid-key [flags]")
	}
	return cli(ctx, cfg, args, stdout)
}
