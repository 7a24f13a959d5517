package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// secrets are the server's keys: the HMAC key behind every match key and audit subject, and
// the key that signs admin sessions. They never live in the database: a copy of the database
// alone can neither turn a keyed hash back into a phone number nor forge a session.
type secrets struct {
	HMAC    []byte `json:"hmac"`
	Session []byte `json:"session"`
}

// minSecret is the shortest key accepted, in bytes.
const minSecret = 32

// loadSecrets reads the keys from the environment when both are set, else from the secrets
// file, which is created (0600) with fresh keys on first start.
func loadSecrets(cfg Config) (secrets, error) {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return secretsFromEnv(cfg)
	}
	b, err := os.ReadFile(cfg.SecretsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return createSecrets(cfg.SecretsFile)
	}
	if err != nil {
		return secrets{}, fmt.Errorf("secrets file: %w", err)
	}
	if err := os.Chmod(cfg.SecretsFile, 0o600); err != nil {
		return secrets{}, fmt.Errorf("secrets file: %w", err)
	}
	return parseSecrets(b, cfg.SecretsFile)
}

func secretsFromEnv(cfg Config) (secrets, error) {
	var s secrets
	for _, k := range []struct {
		name, value string
		dst         *[]byte
	}{{"CONSENTFORMS_HMAC_KEY", cfg.HMACKey, &s.HMAC}, {"CONSENTFORMS_SESSION_KEY", cfg.SessionKey, &s.Session}} {
		b, err := base64.StdEncoding.DecodeString(k.value)
		if err != nil || len(b) < minSecret {
			return s, fmt.Errorf("%s must be set to at least %d random bytes in base64 (with the other key)", k.name, minSecret)
		}
		*k.dst = b
	}
	return s, nil
}

func parseSecrets(b []byte, path string) (secrets, error) {
	var s secrets
	if err := json.Unmarshal(b, &s); err != nil || len(s.HMAC) < minSecret || len(s.Session) < minSecret {
		return s, fmt.Errorf("secrets file %s is damaged: restore it from your backup", path)
	}
	return s, nil
}

// createSecrets writes fresh keys. The file appears whole or not at all (written aside, then
// linked into place); when another process created it meanwhile, its keys are read instead.
func createSecrets(path string) (secrets, error) {
	s := secrets{HMAC: make([]byte, minSecret), Session: make([]byte, minSecret)}
	_, _ = rand.Read(s.HMAC)
	_, _ = rand.Read(s.Session)
	b, _ := json.Marshal(s)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, fmt.Errorf("secrets file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".secrets-*")
	if err != nil {
		return s, fmt.Errorf("secrets file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		b, err := os.ReadFile(path)
		if err != nil {
			return s, fmt.Errorf("secrets file: %w", err)
		}
		return parseSecrets(b, path)
	}
	if err != nil {
		return s, fmt.Errorf("secrets file: %w", err)
	}
	return s, nil
}
