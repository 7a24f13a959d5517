package main

import (
	"net/url"
	"strings"
	"testing"
)

// TestDefaultCountry: a tenant's default country lets the records volunteers type in carry
// national phone numbers, stored in E.164 and found by every lookup in either spelling; without
// one they are refused, and form submissions take international numbers only (docs/API.md §3.4).
func TestDefaultCountry(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, plain := openTenant(s), openTenant(s)
	if out := s.cli("tenant", "update", "--tenant", tn, "--default-country", "de"); out["defaultCountry"] != "DE" {
		t.Errorf("tenant update printed %v", out)
	}
	if out, err := s.cliErr("tenant", "update", "--tenant", plain, "--default-country", "XX"); err == nil {
		t.Errorf("an unknown country was accepted: %v", out)
	}
	k, kp := s.key(tn, "all"), s.key(plain, "all")

	call1 := map[string]any{"phone_number": "0151 1234 5678", "caller_id": "c-1"}
	visit := map[string]any{"canvasser_id": "cv-1", "phone_number": "(0151) 1234-5679", "consent_to_general_contact_phone": true}
	for _, c := range []struct {
		path string
		body map[string]any
		code string // the existing phone error of the endpoint
	}{{callsPath, call1, "phone_number_invalid"}, {canvassingPath, visit, "consent_to_general_contact_phone_invalid"},
		{digitisationPath, map[string]any{"form_id": "petition", "phone_number": "0151 1234 5671", "consent_to_general_contact_phone": true},
			"consent_to_general_contact_phone_invalid"}} {
		if r := call(t, s, "POST", c.path, k, c.body); r.Status != 201 {
			t.Errorf("%s with a national number in DE: %d %s", c.path, r.Status, r.Body)
		}
		if r := call(t, s, "POST", c.path, kp, c.body); r.Status != 400 || str(r.JSON(t), "code") != c.code {
			t.Errorf("%s with a national number and no default country: %d %s", c.path, r.Status, r.Body)
		}
	}
	form := map[string]any{"form_id": "petition", "phone_number": "0151 1234 5670", "consent_to_general_contact_phone": true}
	if r := call(t, s, "POST", "/api/v1/forms/accept-submission", k, form); r.Status != 400 {
		t.Errorf("a form submission with a national number: %d %s", r.Status, r.Body)
	}

	export := call(t, s, "POST", "/api/v1/gdpr/export", k, map[string]any{"phoneNumber": "+49 151 12345678"}).JSON(t)
	tasks, _ := at(export, "records.phoneCallTasks").([]any)
	if len(tasks) != 1 || str(tasks[0], "contact.phoneNumber") != "+4915112345678" {
		t.Errorf("export by the international number: %v", at(export, "records"))
	}
	assertUnsubscribed(t, call(t, s, "POST", unsubPath("brevo"), k, map[string]any{"phone": "0151 12345679"}), 1)
	if r := call(t, s, "GET", "/api/v1/consents?phone=0151+1234+5678", kp, nil); r.Status != 400 {
		t.Errorf("a national number where no default country is set: %d %s", r.Status, r.Body)
	}
	if c := erase(t, s, k, map[string]any{"phoneNumber": "0151-1234-5678"}); c != (counts{PhoneCallTasks: 1}) {
		t.Errorf("erasure by the national number: %+v", c)
	}
	if out := s.cli("tenant", "update", "--tenant", tn, "--default-country", ""); out["defaultCountry"] != "" {
		t.Errorf("clearing printed %v", out)
	}
}

// TestDefaultCountryAdmin: a platform admin sets and clears a tenant's default country on the
// tenants page; an unknown code is refused with the form shown again.
func TestDefaultCountryAdmin(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	root := newAdminClient(t, s)
	root.signIn("root@example.com", "root-password-1")
	root.get("/admin/tenants")
	if st, body, _ := root.post("/admin/tenants/country", url.Values{"tenant": {tn}, "default_country": {"XX"}}); st != 422 ||
		!strings.Contains(body, "ISO 3166") {
		t.Errorf("an unknown country: %d\n%s", st, body)
	}
	if st, _, _ := root.post("/admin/tenants/country", url.Values{"tenant": {tn}, "default_country": {"gb"}}); st != 303 {
		t.Fatalf("saving GB: %d", st)
	}
	if _, body := root.get("/admin/tenants"); !strings.Contains(body, `data-testid="tenant-country">GB<`) {
		t.Errorf("the tenants page does not show GB:\n%s", body)
	}
	k := s.key(tn, "all")
	if r := call(t, s, "POST", callsPath, k, map[string]any{"phone_number": "020 7946 0958"}); r.Status != 201 {
		t.Errorf("a UK national number in a GB tenant: %d %s", r.Status, r.Body)
	}
}

// TestIdentifierForms: one person however their identifiers are written — an address in NFD or
// with an IDNA domain, a phone number with a "(0)" trunk prefix or a 00 prefix — and an address
// holding an invisible character is refused rather than stored unmatchable (docs/API.md §3.4).
func TestIdentifierForms(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	k := s.key(openTenant(s), "all")
	subscriber(t, s, k, "nfd", "jose\u0301@example.org", "")
	subscriber(t, s, k, "idn", "Jane@B\u00dcCHER.de", "")
	subscriber(t, s, k, "uk", "", "+44 (0)20 7946 0958")
	for _, q := range [][3]string{
		{"email", "jos\u00e9@example.org", "nfd"}, {"email", "JOSE\u0301@Example.org", "nfd"},
		{"email", "jane@xn--bcher-kva.de", "idn"}, {"email", "jane@b\u00fccher.de", "idn"},
		{"phone", "+442079460958", "uk"}, {"phone", "0044 20 7946 0958", "uk"}, {"phone", "+44 (0) 20-7946-0958", "uk"},
	} {
		got := consentsOf(t, s, k, q[0], q[1])
		if subs, _ := at(got, "submissions").([]any); len(subs) != 1 || str(subs[0], "submissionId") != q[2] {
			t.Errorf("%s=%q finds %v, want %s", q[0], q[1], at(got, "submissions"), q[2])
		}
	}
	if got := str(getSubmission(t, s, k, "uk"), "contact.phoneNumber"); got != "+442079460958" {
		t.Errorf("stored phone %q, want +442079460958", got)
	}
	for _, email := range []string{"bob@example.org\u200b", "\u200ebob@example.org", "bo\u202eb@example.org"} {
		r := call(t, s, "POST", "/api/v1/forms/accept-submission", k, map[string]any{"form_id": "petition", "email": email,
			"consent_to_general_contact_email": true})
		if r.Status != 400 || !strings.Contains(string(r.Body), "email_invalid") {
			t.Errorf("%q: %d %s", email, r.Status, r.Body)
		}
		if r := call(t, s, "POST", "/api/v1/consents/search", k, map[string]any{"email": email}); r.Status != 400 {
			t.Errorf("consent read of %q: %d %s", email, r.Status, r.Body)
		}
	}
}
