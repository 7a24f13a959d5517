package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/consentforms/consentforms/mongo/ferrettest"
)

// mongoForTest returns the suite's MongoDB stand-in, or starts one for this test.
func mongoForTest(t *testing.T) string {
	t.Helper()
	if mongoURI != "" {
		return mongoURI
	}
	srv, err := ferrettest.Start(t.TempDir(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv.URI()
}

// runCLI runs a command of the binary with env and returns what it printed.
func runCLI(t *testing.T, env map[string]string, args ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.Bytes()
}

// TestMoveBetweenStores: export from SQLite, import into MongoDB (its stand-in), export that and
// import into a fresh SQLite: every API answer is the same on all three, the same API key
// works, and the person is still found (the secrets file moves with the data).
func TestMoveBetweenStores(t *testing.T) {
	t.Parallel()
	uri := mongoForTest(t)
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	a := startOn(t, dirA, publicURLEnv)
	tn := openTenant(a)
	k := a.key(tn, "all")
	for _, body := range []map[string]any{
		{"form_id": "petition", "submission_id": "s1", "email": "mover@example.org", "phone_number": "+4915112340000",
			"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true, "first_name": "Mo",
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d", "shoe": "42"},
		{"form_id": "petition", "submission_id": "s2", "email": "mover@example.org", "consent_to_general_contact_email": true},
		{"form_id": "petition", "submission_id": "s3", "email": "gone@example.org", "consent_to_general_contact_email": true},
	} {
		if r := call(t, a, "POST", acceptPath, k, body); r.Status != 200 {
			t.Fatalf("submission: %d %s", r.Status, r.Body)
		}
	}
	if r := call(t, a, "POST", callsPath, k, map[string]any{"phone_number": "+4915112340000"}); r.Status != 201 {
		t.Fatalf("call task: %d %s", r.Status, r.Body)
	}
	if r := call(t, a, "POST", "/api/v1/brevo/unsubscribe", k, map[string]any{"phone": "+4915112340000"}); r.Status != 200 {
		t.Fatalf("unsubscribe: %d %s", r.Status, r.Body)
	}
	if r := call(t, a, "POST", "/api/v1/gdpr/search-and-anonymise", k, map[string]any{"email": "gone@example.org"}); r.Status != 200 {
		t.Fatalf("erasure: %d %s", r.Status, r.Body)
	}
	answers := func(s *testServer) string {
		var out []string
		for _, path := range []string{"/api/v1/forms/submissions/s1", "/api/v1/forms/submissions/s2", "/api/v1/forms/submissions/s3",
			"/api/v1/consents?email=mover@example.org", "/api/v1/consents?phone=%2B4915112340000", "/api/v1/consents?email=gone@example.org"} {
			r := call(t, s, "GET", path, k, nil)
			out = append(out, path+" "+string(r.Body))
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	want := answers(a)

	envA := map[string]string{"CONSENTFORMS_DATA_DIR": dirA}
	envB := map[string]string{"CONSENTFORMS_DATA_DIR": dirB, "MONGODB_URI": uri, "MONGODB_DATABASE": freshDatabase()}
	envC := map[string]string{"CONSENTFORMS_DATA_DIR": dirC}
	secrets, err := os.ReadFile(filepath.Join(dirA, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{dirB, dirC} {
		if err := os.WriteFile(filepath.Join(dir, "secrets.json"), secrets, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	move := func(from, to map[string]string) {
		file := filepath.Join(t.TempDir(), "export.ndjson")
		runCLI(t, from, "export", "--out", file)
		var got map[string]int
		if err := json.Unmarshal(runCLI(t, to, "import", "--in", file), &got); err != nil || got["read"] == 0 || got["added"] != got["read"] {
			t.Fatalf("import printed %v (%v); want every item read and added", got, err)
		}
		if _, err := runCLIErr(to, "import", "--in", file); err == nil {
			t.Error("a second import into a store that holds data was not refused")
		}
		var again map[string]int
		if err := json.Unmarshal(runCLI(t, to, "import", "--in", file, "--merge"), &again); err != nil || again["added"] != 0 {
			t.Errorf("a repeated import with --merge added %v (%v), want 0", again, err)
		}
	}
	move(envA, envB)
	b := startOn(t, dirB, publicURLEnv, "MONGODB_URI="+uri, "MONGODB_DATABASE="+envB["MONGODB_DATABASE"])
	if got := answers(b); got != want {
		t.Errorf("on MongoDB after the move:\n%s\nwant\n%s", got, want)
	}
	move(envB, envC)
	c := startOn(t, dirC, publicURLEnv)
	if got := answers(c); got != want {
		t.Errorf("back on SQLite:\n%s\nwant\n%s", got, want)
	}
}

func runCLIErr(env map[string]string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &out, io.Discard)
	return out.Bytes(), err
}
