package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/consentforms/consentforms/sqlite"
)

// errMongoBackup answers backup and restore on MongoDB, whose backups are mongodump's.
var errMongoBackup = errors.New("MONGODB_URI is set: back up and restore MongoDB with mongodump and mongorestore " +
	"(docs/OPERATIONS.md#backup-and-restore); backup and restore copy the embedded store only")

// quietFlags is a flag set that reports errors to its caller rather than printing them.
func quietFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// printVersion prints the build's version, commit and Go version.
func printVersion(args []string, stdout io.Writer) error {
	if done, err := parseFlags("version", quietFlags("version"), args, stdout); done {
		return err
	}
	return json.NewEncoder(stdout).Encode(readVersion())
}

// backup copies the embedded store to --out while a server may be running on it
// (sqlite.Store.Backup). The secrets file is not in the copy: it is backed up apart.
func backup(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	fs := quietFlags("backup")
	out := fs.String("out", "", "file to write; must not exist (created 0600)")
	if done, err := parseFlags("backup", fs, args, stdout); done {
		return err
	}
	if *out == "" {
		return &usageError{err: errors.New("backup: --out is required"), usage: commandUsage("backup", fs)}
	}
	if cfg.MongoURI != "" {
		return errMongoBackup
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, sqlite.FileName)); err != nil {
		return fmt.Errorf("backup: no database in %s (CONSENTFORMS_DATA_DIR): %w", cfg.DataDir, err)
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Dir: cfg.DataDir})
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	if err := store.Backup(ctx, *out); err != nil {
		return err
	}
	fi, err := os.Stat(*out)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"out": *out, "bytes": fi.Size()})
}

// restore puts a backup into the data dir, which must be empty but for the secrets file,
// then opens the store once so that schema migrations of a newer version apply now.
func restore(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	fs := quietFlags("restore")
	in := fs.String("in", "", "backup file to restore")
	if done, err := parseFlags("restore", fs, args, stdout); done {
		return err
	}
	if *in == "" {
		return &usageError{err: errors.New("restore: --in is required"), usage: commandUsage("restore", fs)}
	}
	if cfg.MongoURI != "" {
		return errMongoBackup
	}
	if err := sqlite.Restore(ctx, *in, cfg.DataDir, cfg.SecretsFile); err != nil {
		return err
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Dir: cfg.DataDir})
	if err != nil {
		return fmt.Errorf("restore: the restored store does not open: %w", err)
	}
	if err := store.Close(ctx); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"restored": *in, "dataDir": cfg.DataDir})
}
