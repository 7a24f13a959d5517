package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// copyFixture copies testdata/v1store (a data dir written by the code before belonging and
// mention keys, see its README.md) into a fresh temp dir and returns it with the fixture's
// tenant id and API key.
func copyFixture(t *testing.T) (dir, tenant, key string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("testdata", "v1store")
	for _, name := range []string{"consentforms.db", "secrets.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	return dir, read("TENANT"), read("KEY")
}

// TestRekeyOldStore: a store written before mentions were told apart is re-keyed at start, on
// the embedded store and (through export and import) on MongoDB: Bob no longer reads Alice's
// record, the old "+4402079460958" is stored and found as +442079460958, an NFD-written address
// is found by its NFC form; a second pass has nothing to do.
func TestRekeyOldStore(t *testing.T) {
	t.Parallel()
	dir, _, key := copyFixture(t)
	var s *testServer
	if mongoURI == "" {
		s = startOn(t, dir)
	} else {
		file := filepath.Join(t.TempDir(), "v1.ndjson")
		runCLI(t, map[string]string{"CONSENTFORMS_DATA_DIR": dir}, "export", "--out", file)
		target := t.TempDir()
		b, err := os.ReadFile(filepath.Join(dir, "secrets.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(target, "secrets.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"CONSENTFORMS_DATA_DIR": target}
		for _, kv := range storeEnv(t) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		runCLI(t, env, "import", "--in", file)
		s = startOn(t, target, storeEnv2(env)...)
	}
	logged := regexp.MustCompile(`"msg":"re-keyed records","scanned":(\d+),"rekeyed":(\d+)`).FindStringSubmatch(s.stderr.String())
	// alice-1 and dave-1 (mentions), uk-1 (its phone), nfd-1 (NFC); bob-1 was keyed right.
	if logged == nil || logged[1] != "5" || logged[2] != "4" {
		t.Errorf("start-up log %v, want 5 records scanned and 4 re-keyed:\n%s", logged, s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), "bob@") || strings.Contains(s.stderr.String(), "alice@") {
		t.Error("the re-key logged an e-mail address")
	}
	bob := consentsOf(t, s, key, "email", "bob@example.org")
	if subs, _ := at(bob, "submissions").([]any); len(subs) != 1 || str(subs[0], "submissionId") != "bob-1" ||
		str(bob, "generalContact.email") != "not_granted" {
		t.Errorf("Bob's consent read after the re-key: %v", bob)
	}
	uk := consentsOf(t, s, key, "phone", "+44 (0)20 7946 0958")
	if subs, _ := at(uk, "submissions").([]any); len(subs) != 1 || str(uk, "generalContact.phone") != "granted" {
		t.Errorf("the UK number's consent read: %v", uk)
	}
	if got := str(getSubmission(t, s, key, "uk-1"), "contact.phoneNumber"); got != "+442079460958" {
		t.Errorf("uk-1's phone = %q, want +442079460958", got)
	}
	if got := consentsOf(t, s, key, "email", "jos\u00e9@example.org"); str(got, "generalContact.email") != "granted" {
		t.Errorf("the NFC address finds %v", got)
	}
	c, mentions := decodeErasureMentions(t, call(t, s, "POST", erasePath, key, map[string]any{"email": "bob@example.org"}))
	if c != (counts{FormSubmissions: 1}) || mentions != 1 {
		t.Errorf("erasing Bob: %+v, removedMentions %d; want his record and Alice's mention", c, mentions)
	}
	c, mentions = decodeErasureMentions(t, call(t, s, "POST", erasePath, key, map[string]any{"phoneNumber": "+4915123456789"}))
	if c != (counts{}) || mentions != 1 {
		t.Errorf("erasing Carl: %+v, removedMentions %d; want the mention in dave-1 only", c, mentions)
	}
	assertAliceIntact(t, s, key, "alice-1")
	if out := s.cli("rehash"); out["records"] != float64(5) || out["rehashed"] != float64(0) {
		t.Errorf("a second pass: %v, want nothing to do", out)
	}
}

// storeEnv2 is env as the "KEY=value" list startOn takes.
func storeEnv2(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
