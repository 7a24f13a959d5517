package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// rehash re-derives every record's match keys with the current HMAC key (creating a secrets
// file with fresh keys when there is none): the way back after the secrets file was lost,
// since the identifiers the keys are derived from are still in the records (erased records
// have none and keep none). It is the re-key a server runs at start (rekeyAtStart), run for
// every record whatever the store's keying version. Run it with the servers stopped; it prints
// {"records","rehashed"}. Audit subjects (keyed hashes of the old key) are not re-derived:
// their values are gone.
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
	n, fixed, err := rekey(ctx, store, keys, slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Errorf("rehash: %w", err)
	}
	out := map[string]int{"records": n, "rehashed": fixed}
	// Provider secrets are re-sealed under the current secrets key; those sealed under a lost
	// file's key cannot be, and must be set again.
	if _, lost, err := resealSecrets(ctx, store.SMS, keys.secretsKeys()); err != nil {
		return fmt.Errorf("rehash: %w", err)
	} else if lost > 0 {
		out["smsSecretsToSetAgain"] = lost
	}
	return json.NewEncoder(stdout).Encode(out)
}

// rekeyAtStart re-keys the store when its records were keyed by an older version of the code
// (tenants.KeyingVersion), before the server answers anyone: a consent read or unsubscribe
// must not reach a record by an identifier it only mentions. Resumable: a start stopped
// part-way re-keys what is left at the next one.
func rekeyAtStart(ctx context.Context, store tenants.Stores, keys secrets, log *slog.Logger) error {
	v, err := store.MatchKeys.KeyingVersion(ctx)
	if err != nil || v >= tenants.KeyingVersion {
		return err
	}
	_, _, err = rekey(ctx, store, keys, log)
	return err
}

// rekey re-derives every record's match keys (ops.Rights.Rekey), logging its progress in
// counts only, and records the keying version it keyed by.
func rekey(ctx context.Context, store tenants.Stores, keys secrets, log *slog.Logger) (scanned, rekeyed int, err error) {
	started := time.Now()
	log.Info("re-keying records", "keyingVersion", tenants.KeyingVersion)
	svc := ops.New(ops.Config{Hasher: tenants.NewHasher(keys.HMAC), Now: time.Now}).Rights
	scanned, rekeyed, err = svc.Rekey(ctx, store.Transfer, store.MatchKeys, func(scanned, rekeyed int) {
		log.Info("re-keying records", "scanned", scanned, "rekeyed", rekeyed)
	})
	if err != nil {
		return scanned, rekeyed, err
	}
	if err := store.MatchKeys.SetKeyingVersion(ctx, tenants.KeyingVersion); err != nil {
		return scanned, rekeyed, err
	}
	log.Info("re-keyed records", "scanned", scanned, "rekeyed", rekeyed, "duration", time.Since(started).Round(time.Millisecond).String())
	return scanned, rekeyed, nil
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
