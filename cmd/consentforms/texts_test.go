package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// publish publishes a consent text with the CLI and returns its output.
func publish(s *testServer, tenant, form, consent, lang, text string) map[string]any {
	s.t.Helper()
	return s.cli("form", "text", "--tenant", tenant, "--form-id", form, "--consent", consent, "--lang", lang, "--text", text)
}

func sha(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// TestConsentTextCLI: form text publishes an immutable version and prints exactly
// {"version","hash","consent","language","publishedAt"}, the hash of the exact bytes of a file;
// bad input is refused and stores nothing.
func TestConsentTextCLI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	text := "Ich möchte per E-Mail informiert werden.\n"
	file := filepath.Join(t.TempDir(), "notice.txt")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out := s.cli("form", "text", "--tenant", tn, "--form-id", "petition", "--consent", "general_contact_email", "--lang", "DE", "--file", file)
	if keys := keysOf(out, ""); len(keys) != 5 {
		t.Errorf("output %v, want exactly version, hash, consent, language, publishedAt", out)
	}
	if out["hash"] != sha(text) || out["consent"] != "general_contact_email" || out["language"] != "de" || str(out, "version") == "" {
		t.Errorf("output %v; want the hash %s of the file's bytes, consent general_contact_email, language de", out, sha(text))
	}
	timeAt(t, out, "publishedAt")
	again := publish(s, tn, "petition", "general_contact_email", "de", text)
	if again["version"] == out["version"] || again["hash"] != out["hash"] {
		t.Errorf("publishing the same text again: %v after %v; want a new version with the same hash", again, out)
	}
	for _, bad := range [][]string{
		{"--consent", "marketing", "--lang", "de", "--text", "x"},
		{"--consent", "primary_purpose", "--lang", "deutsch", "--text", "x"},
		{"--consent", "primary_purpose", "--lang", "de", "--text", "  "},
		{"--consent", "primary_purpose", "--lang", "de"},
		{"--consent", "primary_purpose", "--lang", "de", "--text", "x", "--file", file},
	} {
		args := append([]string{"form", "text", "--tenant", tn, "--form-id", "petition"}, bad...)
		if _, err := s.cliErr(args...); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
	if _, err := s.cliErr("form", "text", "--tenant", tn, "--form-id", "nope", "--consent", "primary_purpose", "--lang", "de", "--text", "x"); err == nil {
		t.Error("a text for an unknown form was accepted")
	}
}

// TestConsentTextIntake: a granted consent records the text version it was given under —
// named by consent_text_version (the set as of that version) or, without it, the form's current
// one in the form's language — and the record read and the consent read show it; an unknown
// version (another form's, another tenant's) is consent_text_version_unknown and stores nothing.
func TestConsentTextIntake(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	k := s.key(tn, "all")
	s.cli("form", "create", "--tenant", tn, "--form-id", "survey")
	body := func(id string, extra ...any) map[string]any {
		return with(map[string]any{"form_id": "petition", "submission_id": id, "email": "ada@example.org",
			"consent_to_general_contact_email": true, "consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y"}, extra...)
	}
	// A form without texts records none.
	submit(t, s, k, body("none"))
	if c := at(getSubmission(t, s, k, "none"), "consents.primaryPurpose"); at(c, "text") != nil {
		t.Errorf("a form without texts recorded %v", c)
	}
	ppDE1 := publish(s, tn, "petition", "primary_purpose", "de", "Ich stimme zu.")
	emailDE := publish(s, tn, "petition", "general_contact_email", "de", "E-Mail: ja.")
	ppEN := publish(s, tn, "petition", "primary_purpose", "en", "I agree.")
	ppDE2 := publish(s, tn, "petition", "primary_purpose", "de", "Ich stimme zu (neu).")
	surveyText := publish(s, tn, "survey", "primary_purpose", "de", "Umfrage.")
	foreign := publish(s, other, "petition", "primary_purpose", "de", "Fremd.")
	wantText := func(sub map[string]any, consent string, v map[string]any) {
		t.Helper()
		got := at(sub, "consents."+consent+".text")
		want := map[string]any{"version": v["version"], "hash": v["hash"], "language": v["language"]}
		jsonEqual(t, consent+".text of "+str(sub, "submissionId"), got, want)
	}

	// Named: the set as of that version, in its language.
	submit(t, s, k, body("named", "consent_text_version", emailDE["version"]))
	named := getSubmission(t, s, k, "named")
	wantText(named, "primaryPurpose", ppDE1)
	wantText(named, "generalContactEmail", emailDE)
	if at(named, "consents.generalContactPhone.text") != nil {
		t.Errorf("a consent not granted recorded a text: %v", at(named, "consents.generalContactPhone"))
	}
	if _, inPayload := at(named, "payload").(map[string]any)["consent_text_version"]; inPayload {
		t.Error("consent_text_version was stored as a custom field")
	}
	submit(t, s, k, body("named-en", "consent_text_version", ppEN["version"]))
	wantText(getSubmission(t, s, k, "named-en"), "primaryPurpose", ppEN)
	// Not named: the current set in the form's language (no language set: the latest publication's).
	submit(t, s, k, body("current"))
	current := getSubmission(t, s, k, "current")
	wantText(current, "primaryPurpose", ppDE2)
	wantText(current, "generalContactEmail", emailDE)
	// The form's language picks among the current texts where it has one.
	s.cli("form", "create", "--tenant", tn, "--form-id", "bilingual")
	s.cli("form", "update", "--tenant", tn, "--form-id", "bilingual", "--language", "en")
	biEN := publish(s, tn, "bilingual", "primary_purpose", "en", "I agree.")
	publish(s, tn, "bilingual", "primary_purpose", "de", "Ich stimme zu.")
	submit(t, s, k, body("bilingual", "form_id", "bilingual"))
	wantText(getSubmission(t, s, k, "bilingual"), "primaryPurpose", biEN)
	// The consent read shows the text too.
	reads := consentsOf(t, s, k, "email", "ada@example.org")
	found := false
	for _, sub := range at(reads, "submissions").([]any) {
		if str(sub, "submissionId") == "named" {
			found = at(sub, "consents.primaryPurpose.text.version") == ppDE1["version"]
		}
	}
	if !found {
		t.Errorf("GET /api/v1/consents does not show the text of submission named: %v", reads)
	}

	// Unknown versions: none stored, every other failed rule still listed.
	for name, v := range map[string]any{"form": surveyText["version"], "tenant": foreign["version"], "made-up": "ct_nope", "number": 7} {
		r := call(t, s, "POST", acceptPath, k, body("bad-"+name, "consent_text_version", v))
		assertCodes(t, r, "consent_text_version_unknown")
		if g := call(t, s, "GET", "/api/v1/forms/submissions/bad-"+name, k, nil); g.Status != 404 {
			t.Errorf("%s version: the submission was stored (%d)", name, g.Status)
		}
	}
	r := call(t, s, "POST", acceptPath, k, map[string]any{"form_id": "petition", "consent_text_version": "ct_nope", "x": 1})
	assertCodes(t, r, "consent_to_primary_purpose_missing", "consent_text_version_unknown", "consent_missing")

	// Section 6: the same rules, the single-error body.
	postRecord(t, s, k, "/api/v1/digitisation/submissions", map[string]any{"form_id": "petition", "consent_text_version": ppEN["version"],
		"email": "bob@example.org", "consent_to_general_contact_email": true, "document_ref": "scan-1"})
	bad := call(t, s, "POST", "/api/v1/canvassing/submissions", k, map[string]any{"form_id": "petition", "consent_text_version": surveyText["version"],
		"email": "bob@example.org", "consent_to_general_contact_email": true})
	if m := bad.JSON(t); bad.Status != 400 || m["error"] != "ValidationError" || m["code"] != "consent_text_version_unknown" {
		t.Errorf("canvassing with another form's version: %d %s", bad.Status, bad.Body)
	}
	noForm := call(t, s, "POST", "/api/v1/canvassing/submissions", k, map[string]any{"consent_text_version": ppDE1["version"],
		"email": "bob@example.org", "consent_to_general_contact_email": true})
	if m := noForm.JSON(t); noForm.Status != 400 || m["code"] != "consent_text_version_unknown" {
		t.Errorf("canvassing without a form naming a version: %d %s", noForm.Status, noForm.Body)
	}
	postRecord(t, s, k, "/api/v1/canvassing/submissions", map[string]any{"form_id": "petition", "consent_text_version": ppDE1["version"],
		"email": "bob@example.org", "consent_to_general_contact_email": true})
}
