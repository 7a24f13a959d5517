package main

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/consentforms/consentforms/admin"
)

// secrets are the server's keys: the HMAC key behind every match key and audit subject, and
// the key that signs admin sessions. They never live in the database: a copy of the database
// alone can neither turn a keyed hash back into a phone number nor forge a session.
type secrets struct {
	HMAC    []byte `json:"hmac"`
	Session []byte `json:"session"`
	// SessionKeyID names Session in the tokens it signs (their kid); "" reads as "1".
	SessionKeyID string `json:"sessionKeyId,omitempty"`
	// Retired are the session keys rotated out, still accepted for one token lifetime so
	// that nobody active is signed out; kept in the file until the next rotation.
	Retired []retiredKey `json:"retiredSessionKeys,omitempty"`
	// HeldData is set once the store held data beside these keys: an empty store beside them
	// then means a lost or replaced database, and the server refuses to start on it.
	HeldData bool `json:"heldData,omitempty"`
	// SecretsKey seals the tenants' provider secrets (secretskey.go); absent until the first
	// rotation, when a key derived from HMAC stands in for it.
	SecretsKey   []byte `json:"secretsKey,omitempty"`
	SecretsKeyID string `json:"secretsKeyId,omitempty"`
	// RetiredSecretsKeys open values not yet re-sealed while a rotation runs.
	RetiredSecretsKeys []retiredKey `json:"retiredSecretsKeys,omitempty"`
}

// retiredKey is a session key rotated out at RetiredAt.
type retiredKey struct {
	ID        string    `json:"id"`
	Key       []byte    `json:"key"`
	RetiredAt time.Time `json:"retiredAt"`
}

// sessionKeyID is the current session key's id.
func (s secrets) sessionKeyID() string { return cmp.Or(s.SessionKeyID, "1") }

// sessionKeys are the keys that verify session tokens at now: the current one first, then
// those retired less than a token's lifetime ago. After that every token they signed has
// expired or been renewed with the current key.
func (s secrets) sessionKeys(now time.Time) []admin.SessionKey {
	out := []admin.SessionKey{{ID: s.sessionKeyID(), Key: s.Session}}
	for _, r := range s.Retired {
		if now.Before(r.RetiredAt.Add(admin.TokenLifetime)) {
			out = append(out, admin.SessionKey{ID: r.ID, Key: r.Key})
		}
	}
	return out
}

// minSecret is the shortest key accepted, in bytes.
const minSecret = 32

// loadSecrets reads the keys from the environment when both are set, else from the secrets
// file, which is created (0600) with fresh keys on first start.
func loadSecrets(cfg Config) (secrets, error) {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return secretsFromEnv(cfg)
	}
	if err := restrictDataDir(cfg); err != nil {
		return secrets{}, err
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

// restrictDataDir makes the data dir 0700 when it holds the secrets file, whichever store is
// used (the embedded store also tightens it, with its own files).
func restrictDataDir(cfg Config) error {
	if filepath.Clean(filepath.Dir(cfg.SecretsFile)) != filepath.Clean(cfg.DataDir) {
		return nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if err := os.Chmod(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir mode: %w", err)
	}
	return nil
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
	s.SessionKeyID = "env" // a new key in the environment ends every session signed with the old one
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
	tmp, err := writeAside(dir, b)
	if err == nil {
		defer os.Remove(tmp)
		err = os.Link(tmp, path)
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

// keyring serves the session keys to a running server, re-reading the secrets file when it
// changed (checked at most every keyringCheck), so that a rotation reaches every instance
// without a restart. A file that cannot be read or parsed leaves the keys as they were.
type keyring struct {
	path    string // "" = keys from the environment, never re-read
	mu      sync.Mutex
	s       secrets
	mod     time.Time
	checked time.Time
}

// keyringCheck bounds how long a rotation takes to reach a running server.
const keyringCheck = 15 * time.Second

func newKeyring(cfg Config, s secrets) *keyring {
	k := &keyring{s: s, checked: time.Now()}
	if cfg.HMACKey == "" && cfg.SessionKey == "" {
		k.path = cfg.SecretsFile
		if fi, err := os.Stat(k.path); err == nil {
			k.mod = fi.ModTime()
		}
	}
	return k
}

// SessionKeys are the session keys now, the current one first.
func (k *keyring) SessionKeys() []admin.SessionKey {
	return k.current().sessionKeys(time.Now())
}

// current returns the keys, re-reading the secrets file when it changed.
func (k *keyring) current() secrets {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	if k.path != "" && now.Sub(k.checked) >= keyringCheck {
		k.checked = now
		if fi, err := os.Stat(k.path); err == nil && !fi.ModTime().Equal(k.mod) {
			if b, err := os.ReadFile(k.path); err == nil {
				if s, err := parseSecrets(b, k.path); err == nil && bytes.Equal(s.HMAC, k.s.HMAC) {
					k.s, k.mod = s, fi.ModTime()
				}
			}
		}
	}
	return k.s
}

// rotateSessionKey replaces the session key in the secrets file with a fresh one; the old
// one is accepted for one more token lifetime (admin sessions renew onto the new key), and
// keys retired before that are dropped. The HMAC key is never rotated: every match key
// depends on it.
func rotateSessionKey(cfg Config, now time.Time) (map[string]any, error) {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return nil, errors.New("the keys come from the environment: set a new CONSENTFORMS_SESSION_KEY instead (every session ends)")
	}
	s, err := readSecretsFile(cfg)
	if err != nil {
		return nil, err
	}
	old := s.sessionKeyID()
	var keep []retiredKey
	for _, r := range s.Retired {
		if now.Before(r.RetiredAt.Add(admin.TokenLifetime)) {
			keep = append(keep, r)
		}
	}
	s.Retired = append(keep, retiredKey{ID: old, Key: s.Session, RetiredAt: now.UTC()})
	s.Session = make([]byte, minSecret)
	_, _ = rand.Read(s.Session)
	s.SessionKeyID = nextKeyID(old)
	if err := replaceSecrets(cfg.SecretsFile, s); err != nil {
		return nil, err
	}
	return map[string]any{"sessionKeyId": s.SessionKeyID, "retired": old, "acceptedUntil": now.Add(admin.TokenLifetime).UTC()}, nil
}

// readSecretsFile reads the secrets file that a rotation is to change.
func readSecretsFile(cfg Config) (secrets, error) {
	b, err := os.ReadFile(cfg.SecretsFile)
	if err != nil {
		return secrets{}, fmt.Errorf("secrets file: %w", err)
	}
	return parseSecrets(b, cfg.SecretsFile)
}

// nextKeyID counts key ids up: "1", "2", ...; any other id gets a random one.
func nextKeyID(id string) string {
	if n, err := strconv.Atoi(id); err == nil && n > 0 {
		return strconv.Itoa(n + 1)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// replaceSecrets writes s over the secrets file, whole or not at all (written aside, 0600,
// synced, then renamed into place).
func replaceSecrets(path string, s secrets) error {
	b, _ := json.Marshal(s)
	tmp, err := writeAside(filepath.Dir(path), b)
	if err == nil {
		defer os.Remove(tmp)
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("secrets file: %w", err)
	}
	return nil
}

// writeAside writes b to a new temporary file in dir (0600, synced, closed) and returns its
// name, for the caller to link or rename into place; on an error nothing is left behind.
func writeAside(dir string, b []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, ".secrets-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
