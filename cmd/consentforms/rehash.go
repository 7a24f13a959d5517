package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// rehash re-derives every record's match keys with the current HMAC key (creating a secrets
// file with fresh keys when there is none): the way back after the secrets file was lost,
// since the identifiers the keys are derived from are still in the records (erased records
// have none and keep none). Run it with the servers stopped; it prints {"records","rehashed"}.
// Audit subjects (keyed hashes of the old key) are not re-derived: their values are gone.
func rehash(ctx context.Context, cfg Config, stdout io.Writer) error {
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	keys, err := loadSecrets(cfg)
	if err != nil {
		return err
	}
	svc := &ops.Service{Hasher: tenants.NewHasher(keys.HMAC), Now: time.Now}
	type fix struct {
		tenant, id string
		kind       tenants.Kind
		keys       []string
	}
	var fixes []fix
	n := 0
	// The changes are collected first and written after the export's read ends.
	err = store.Transfer.Export(ctx, func(it tenants.Item) error {
		if it.Record == nil {
			return nil
		}
		n++
		want := svc.Prepare(*it.Record, "", "").Record.MatchKeys
		if !slices.Equal(want, it.Record.MatchKeys) {
			fixes = append(fixes, fix{it.Record.TenantID, it.Record.PublicID, it.Record.Kind, want})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rehash: %w", err)
	}
	for _, f := range fixes {
		if err := store.MatchKeys.SetMatchKeys(ctx, f.tenant, f.kind, f.id, f.keys); err != nil {
			return fmt.Errorf("rehash: %w", err)
		}
	}
	return json.NewEncoder(stdout).Encode(map[string]int{"records": n, "rehashed": len(fixes)})
}

// refuseLostSecrets stops a start that would create fresh keys beside a database that holds
// data: every match key would silently stop matching. The operator restores the file, or runs
// rehash on purpose.
func refuseLostSecrets(ctx context.Context, cfg Config, store tenants.Stores) error {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return nil
	}
	if _, err := os.Stat(cfg.SecretsFile); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	empty, err := store.Transfer.Empty(ctx)
	if err != nil || empty {
		return err
	}
	return fmt.Errorf("the secrets file %s is missing but the database holds data: restore the file from your backup "+
		"(without it nobody can be found by e-mail or phone); if it is lost for good, run `consentforms rehash` "+
		"to make new keys and re-derive every lookup from the records", cfg.SecretsFile)
}

// ensureSecrets makes sure a provisioning command never leaves data without the keys that go
// with it: on a fresh data dir it creates the secrets file, as the server's first start would,
// so that provisioning before the first start works; beside data whose file is lost it refuses,
// as the server does.
func ensureSecrets(ctx context.Context, cfg Config, store tenants.Stores) error {
	if err := refuseLostSecrets(ctx, cfg, store); err != nil {
		return err
	}
	keys, err := loadSecrets(cfg)
	if err != nil {
		return err
	}
	return refuseLostData(ctx, cfg, keys, store)
}

// refuseLostData refuses an empty store beside a secrets file that says the store held data
// (a database file lost, emptied or replaced; a MongoDB database name mistyped): starting
// afresh there would hide the loss. When the store holds data and the file does not say so
// yet, it says so from now on (where the file can be written).
func refuseLostData(ctx context.Context, cfg Config, keys secrets, store tenants.Stores) error {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return nil
	}
	empty, err := store.Transfer.Empty(ctx)
	if err != nil {
		return err
	}
	if empty && keys.HeldData {
		return fmt.Errorf("the store is empty, but the secrets file %s was used with a store that held data: "+
			"the database was lost, emptied or replaced (or MONGODB_URI/MONGODB_DATABASE or CONSENTFORMS_DATA_DIR points elsewhere). "+
			"Restore the database from a backup (docs/OPERATIONS.md#backup-and-restore); to start a new, empty store on purpose, "+
			"move the secrets file away first", cfg.SecretsFile)
	}
	if !empty && !keys.HeldData {
		// Best effort: a secrets file mounted read-only stays as it is, and this check then
		// protects nothing there, as before.
		keys.HeldData = true
		_ = replaceSecrets(cfg.SecretsFile, keys)
	}
	return nil
}
