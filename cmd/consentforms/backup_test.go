package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBackupAndRestore: a backup taken with the CLI while the server runs and takes
// submissions, restored into an empty data dir beside the secrets file, serves the same
// data: the API key still works, the submission and the person's consents read back as
// before. Restore refuses a data dir that holds anything else; on MongoDB both commands
// point to mongodump.
func TestBackupAndRestore(t *testing.T) {
	// One public URL, so that the withdrawal links read the same before and after.
	s := startServer(t, publicURLEnv)
	if mongoURI != "" {
		for _, args := range [][]string{{"backup", "--out", filepath.Join(t.TempDir(), "b.db")}, {"restore", "--in", "x"}} {
			if _, err := s.cliErr(args...); !errors.Is(err, errMongoBackup) {
				t.Errorf("%v on MongoDB: %v", args, err)
			}
		}
		return
	}
	tenant := s.tenant()
	key := s.key(tenant, "all")
	submit := func(id, email string) response {
		return s.do("POST", "/api/v1/forms/accept-submission", key, map[string]any{"form_id": "petition", "submission_id": id,
			"email": email, "consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
			"consent_to_general_contact_email": true})
	}
	if r := submit("kept-1", "kept@example.org"); r.Status != 200 {
		t.Fatalf("submission: %d %s", r.Status, r.Body)
	}
	before := s.do("GET", "/api/v1/consents?email=kept@example.org", key, nil)
	record := s.do("GET", "/api/v1/forms/submissions/kept-1", key, nil)

	out := filepath.Join(t.TempDir(), "consentforms-backup.db")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // intake goes on during the backup
		defer wg.Done()
		for i := range 20 {
			if r := submit("during-"+strings.Repeat("x", i+1), "during@example.org"); r.Status != 200 {
				t.Errorf("submission during the backup: %d", r.Status)
			}
		}
	}()
	res := s.cli("backup", "--out", out)
	wg.Wait()
	if res["out"] != out || res["bytes"].(float64) <= 0 {
		t.Errorf("backup printed %v", res)
	}

	dir := filepath.Join(t.TempDir(), "restored")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("x"), 0o600)
	env := func(k string) string {
		if k == "CONSENTFORMS_DATA_DIR" {
			return dir
		}
		return ""
	}
	if err := run(t.Context(), []string{"restore", "--in", out}, env, &strings.Builder{}, &strings.Builder{}); err == nil ||
		!strings.Contains(err.Error(), "not empty") {
		t.Errorf("restore into a dir holding a file: %v", err)
	}
	_ = os.Remove(filepath.Join(dir, "stray.txt"))
	// The secrets file is backed up apart and put back first (docs/OPERATIONS.md).
	secrets, err := os.ReadFile(filepath.Join(s.Dir, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secrets.json"), secrets, 0o600); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	if err := run(t.Context(), []string{"restore", "--in", out}, env, &printed, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(printed.String(), `"dataDir":"`+dir+`"`) {
		t.Errorf("restore printed %s", printed.String())
	}

	r := startOn(t, dir, publicURLEnv)
	if got := r.do("GET", "/api/v1/consents?email=kept@example.org", key, nil); got.Status != 200 || string(got.Body) != string(before.Body) {
		t.Errorf("consents after restore: %d %s, want %s", got.Status, got.Body, before.Body)
	}
	if got := r.do("GET", "/api/v1/forms/submissions/kept-1", key, nil); got.Status != 200 || string(got.Body) != string(record.Body) {
		t.Errorf("submission after restore: %d %s, want %s", got.Status, got.Body, record.Body)
	}
	if got := r.do("POST", "/api/v1/forms/accept-submission", key, map[string]any{"form_id": "petition", "submission_id": "kept-1",
		"email": "kept@example.org", "consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y"}); got.Status != 200 {
		t.Errorf("repeat of a restored submission: %d %s", got.Status, got.Body)
	}
}
