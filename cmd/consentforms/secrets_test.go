package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSecretsOutsideTheDatabase: the server's keys live in a 0600 secrets file in the data
// dir, and no byte of them, raw or encoded, is in the database's files.
func TestSecretsOutsideTheDatabase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	if r := call(t, s, "POST", acceptPath, k, map[string]any{"form_id": "petition", "email": "key@example.org",
		"consent_to_general_contact_email": true}); r.Status != 200 {
		t.Fatalf("submission: %d %s", r.Status, r.Body)
	}
	path := filepath.Join(s.Dir, "secrets.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	var keys secrets
	if err := json.Unmarshal(b, &keys); err != nil || len(keys.HMAC) < 32 || len(keys.Session) < 32 {
		t.Fatalf("secrets file %s: %v", b, err)
	}
	if s.getenv("MONGODB_URI") != "" {
		return // the database is another process's files
	}
	for name, data := range s.dataFiles() {
		if name == "secrets.json" {
			continue
		}
		for _, key := range [][]byte{keys.HMAC, keys.Session} {
			for _, form := range [][]byte{key, []byte(base64.StdEncoding.EncodeToString(key)), []byte(base64.RawURLEncoding.EncodeToString(key))} {
				if bytes.Contains(data, form) {
					t.Errorf("%s holds a server key", name)
				}
			}
		}
	}
}

func TestLoadSecrets(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{SecretsFile: filepath.Join(dir, "secrets.json")}
	// Concurrent first starts (a server and a CLI) agree on one set of keys.
	var wg sync.WaitGroup
	got := make([]secrets, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if got[i], err = loadSecrets(cfg); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, g := range got[1:] {
		if !bytes.Equal(g.HMAC, got[0].HMAC) || !bytes.Equal(g.Session, got[0].Session) {
			t.Fatal("concurrent first starts made different keys")
		}
	}
	if again, _ := loadSecrets(cfg); !bytes.Equal(again.HMAC, got[0].HMAC) {
		t.Error("a restart made new keys")
	}
	// A file with wider permissions is tightened.
	_ = os.Chmod(cfg.SecretsFile, 0o644)
	if _, err := loadSecrets(cfg); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(cfg.SecretsFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after a restart, want 0600", fi.Mode().Perm())
	}
	// A damaged file is refused, never silently replaced: the keys behind every match key
	// would be lost.
	_ = os.WriteFile(cfg.SecretsFile, []byte("{}"), 0o600)
	if _, err := loadSecrets(cfg); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged file: %v", err)
	}
	// The environment replaces the file, both keys or neither.
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	env, err := loadSecrets(Config{HMACKey: key, SessionKey: key, SecretsFile: cfg.SecretsFile})
	if err != nil || env.HMAC[0] != 7 {
		t.Errorf("keys from the environment: %v", err)
	}
	if _, err := loadSecrets(Config{HMACKey: key, SecretsFile: cfg.SecretsFile}); err == nil {
		t.Error("one key from the environment was accepted")
	}
	if _, err := loadSecrets(Config{HMACKey: "c2hvcnQ=", SessionKey: key}); err == nil {
		t.Error("a short key was accepted")
	}
}
