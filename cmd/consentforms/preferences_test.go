package main

import (
	"net/url"
	"strings"
	"testing"
)

// TestPreferencePage: the record read carries preferencesUrl (/p/, the withdrawal token); the
// page lists the person's general contact by each channel and the primary purpose of each form
// they signed, by name; a POST withdraws exactly the choice — the phone on every record of
// theirs, one form's primary purpose on that form's records only — never a consent of someone
// their record merely mentions, audited with actor subject; a choice the page did not offer is
// 400 and changes nothing; "all" withdraws the rest; the /w/ link opens the same page.
func TestPreferencePage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("form", "create", "--tenant", tn, "--form-id", "rally", "--name", "Rally for the trees")
	subscriber(t, s, k, "p1", "eve@example.org", "+447700900123")
	rally := map[string]any{"form_id": "rally", "submission_id": "p2", "email": "eve@example.org",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y"}
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, rally)
	bob := map[string]any{"form_id": "rally", "submission_id": "b1", "email": "bob@example.org", "referred_friend": "eve@example.org",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y", "consent_to_general_contact_phone": false}
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, bob)

	rec := recordRead(t, s, k, "p2")
	prefs := pathOf(t, s, rec["preferencesUrl"])
	if !strings.HasPrefix(prefs, "/p/") {
		t.Fatalf("preferencesUrl %v", rec["preferencesUrl"])
	}
	r := call(t, s, "GET", prefs, "", nil)
	assertPersonPage(t, r, 200)
	page := string(r.Body)
	for _, want := range []string{`data-choice="email"`, `data-choice="phone"`, `data-choice="form:petition"`, `data-choice="form:rally"`, "Rally for the trees"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s: %s", want, page)
		}
	}
	if strings.Contains(page, "eve@") || strings.Contains(page, "+4477") {
		t.Errorf("the page shows an identifier: %s", page)
	}
	post := func(choice string) response {
		return call(t, s, "POST", prefs, "", "withdraw="+url.QueryEscape(choice), "Content-Type: application/x-www-form-urlencoded")
	}
	status := func(id, consent string) any { return consentOf(recordRead(t, s, k, id), consent)["status"] }

	if r := post("form:nope"); r.Status != 400 || !strings.Contains(string(r.Body), `data-testid="prefs-error"`) {
		t.Errorf("an unknown choice: %d %s", r.Status, r.Body)
	}
	assertPersonPage(t, post("phone"), 200)
	if status("p1", "generalContactPhone") != "revoked" || status("p1", "generalContactEmail") != "granted" || status("p1", "primaryPurpose") != "granted" {
		t.Errorf("after the phone: %v", recordRead(t, s, k, "p1")["consents"])
	}
	assertSubjectAudit(t, s, tn, "consent.revoked", "generalContactPhone via preference page")
	assertPersonPage(t, post("form:rally"), 200)
	if status("p2", "primaryPurpose") != "revoked" || status("p1", "primaryPurpose") != "granted" || status("b1", "primaryPurpose") != "granted" {
		t.Errorf("after the rally: p2 %v, p1 %v, bob %v", status("p2", "primaryPurpose"), status("p1", "primaryPurpose"), status("b1", "primaryPurpose"))
	}
	// The old withdrawal link opens the same page, with what is left.
	w := pathOf(t, s, recordRead(t, s, k, "p1")["withdrawUrl"])
	if page := string(call(t, s, "GET", w, "", nil).Body); strings.Contains(page, `data-choice="phone"`) || strings.Contains(page, `data-choice="form:rally"`) ||
		!strings.Contains(page, `data-choice="email"`) || !strings.Contains(page, `data-choice="form:petition"`) {
		t.Errorf("the /w/ page after two withdrawals: %s", page)
	}
	// A mail client's one-click unsubscribe (RFC 8058) to the page withdraws the e-mail alone.
	oneClick := call(t, s, "POST", prefs, "", "List-Unsubscribe=One-Click", "Content-Type: application/x-www-form-urlencoded")
	assertPersonPage(t, oneClick, 200)
	if status("p1", "generalContactEmail") != "revoked" || status("p1", "primaryPurpose") != "granted" {
		t.Errorf("after the one-click unsubscribe: %v", recordRead(t, s, k, "p1")["consents"])
	}
	found := false
	for _, e := range auditOf(t, s, tn, "consent.revoked") {
		found = found || e.Actor == "subject" && e.Detail == "generalContactEmail via one-click unsubscribe" && e.Subject != ""
	}
	if !found {
		t.Error("the one-click unsubscribe is not audited as the person's")
	}
	assertPersonPage(t, post("all"), 200)
	if status("p1", "generalContactEmail") != "revoked" || status("p1", "primaryPurpose") != "revoked" || status("b1", "primaryPurpose") != "granted" {
		t.Errorf("after everything: p1 %v, bob %v", recordRead(t, s, k, "p1")["consents"], status("b1", "primaryPurpose"))
	}
	if page := string(call(t, s, "GET", prefs, "", nil).Body); !strings.Contains(page, `data-testid="withdraw-nothing"`) {
		t.Errorf("the page after everything: %s", page)
	}
	if r := call(t, s, "GET", "/p/nonsense", "", nil); r.Status != 404 {
		t.Errorf("a forged link: %d", r.Status)
	}
}

// TestOrganisationIdentity: tenant update sets the organisation's legal name, contact,
// address, privacy notice and jurisdiction (refusing a notice that is not https, a malformed
// contact, an unknown country, naming the flag); the hosted form page, the confirmation page and
// the preference page show the legal name, the privacy link and the contact; the receipt names
// them as the controller, the jurisdiction before the default country.
func TestOrganisationIdentity(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	for _, bad := range [][]string{{"--privacy-url", "http://forest.example/privacy"}, {"--contact-email", "not an address"}, {"--jurisdiction", "XX"}} {
		if _, err := s.cliErr(append([]string{"tenant", "update", "--tenant", tn}, bad...)...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("tenant update %v: %v", bad, err)
		}
	}
	out := s.cli("tenant", "update", "--tenant", tn, "--default-country", "DE", "--legal-name", "Friends of the Forest e.V.",
		"--contact-email", "Privacy@Forest.example", "--privacy-url", "https://forest.example/privacy", "--address", "Waldweg 1, 10115 Berlin", "--jurisdiction", "at")
	if id := out["identity"].(map[string]any); id["contactEmail"] != "privacy@forest.example" || id["jurisdiction"] != "AT" {
		t.Errorf("tenant update printed %v", out)
	}
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--hosted-page", "on")
	call(t, s, "POST", "/api/v1/forms/accept-submission", k, doiSubmission("o1", "ada@example.org"))
	rec := recordRead(t, s, k, "o1")
	for name, path := range map[string]string{"hosted form": "/f/" + tn + "/petition", "confirmation": pathOf(t, s, consentOf(rec, "generalContactEmail")["confirmationUrl"]),
		"preferences": pathOf(t, s, rec["preferencesUrl"])} {
		page := string(call(t, s, "GET", path, "", nil).Body)
		for _, want := range []string{"Friends of the Forest e.V.", `href="https://forest.example/privacy"`, `href="mailto:privacy@forest.example"`} {
			if !strings.Contains(page, want) {
				t.Errorf("the %s page lacks %s", name, want)
			}
		}
	}
	r := call(t, s, "GET", "/api/v1/forms/submissions/o1/receipt", k, nil).JSON(t)
	jsonEqual(t, "controller", r["dpv:hasDataController"], map[string]any{"@type": "dpv:DataController", "dct:identifier": tn,
		"dct:title": "Friends of the Forest e.V.", "dpv:hasContact": "privacy@forest.example", "dpv:hasAddress": "Waldweg 1, 10115 Berlin"})
	jsonEqual(t, "jurisdiction", r["dpv:hasJurisdiction"], []any{"loc:AT"})
}
