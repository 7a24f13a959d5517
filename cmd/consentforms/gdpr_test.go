package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

const erasePath = "/api/v1/gdpr/search-and-anonymise"

// counts is the anonymisedRecords object of an erasure answer.
type counts struct {
	FormSubmissions         int `json:"formSubmissions"`
	DigitisationSubmissions int `json:"digitisationSubmissions"`
	CanvassingSubmissions   int `json:"canvassingSubmissions"`
	PhoneCallTasks          int `json:"phoneCallTasks"`
}

func (c counts) add(o counts) counts {
	return counts{c.FormSubmissions + o.FormSubmissions, c.DigitisationSubmissions + o.DigitisationSubmissions,
		c.CanvassingSubmissions + o.CanvassingSubmissions, c.PhoneCallTasks + o.PhoneCallTasks}
}

// decodeErasure checks an erasure answer's exact shape and returns its counts.
func decodeErasure(t *testing.T, r response) counts {
	t.Helper()
	c, _ := decodeErasureMentions(t, r)
	return c
}

// decodeErasureMentions checks an erasure answer's exact shape and returns its counts and its
// removedMentions.
func decodeErasureMentions(t *testing.T, r response) (counts, int) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("erasure: %d %s", r.Status, r.Body)
	}
	var b struct {
		Success           *bool   `json:"success"`
		AnonymisedRecords *counts `json:"anonymisedRecords"`
		RemovedMentions   *int    `json:"removedMentions"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil || b.Success == nil || !*b.Success || b.AnonymisedRecords == nil || b.RemovedMentions == nil {
		t.Fatalf("erasure body %s: %v", r.Body, err)
	}
	var raw map[string]any
	_ = json.Unmarshal(r.Body, &raw)
	if m, _ := raw["anonymisedRecords"].(map[string]any); len(m) != 4 {
		t.Errorf("anonymisedRecords %v, want the four counts", raw["anonymisedRecords"])
	}
	return *b.AnonymisedRecords, *b.RemovedMentions
}

// erase runs an erasure and returns its counts.
func erase(t *testing.T, s *testServer, key string, body map[string]any) counts {
	t.Helper()
	return decodeErasure(t, call(t, s, "POST", erasePath, key, body))
}

// person is one data subject with records of every type.
type person struct {
	email, emailSent string // normalised; as sent in some records
	phone, phoneSent string // E.164; as sent in some records
	first, last      string
	street, city     string
	postcode, ip     string
}

// seedPerson stores the person's records in tenant key k and returns the expected counts of an
// erasure by e-mail and phone: the records that belong to the person (their contact e-mail or
// phone). Three more records only mention the person in a custom field (f3, the second
// digitisation, the second call: seedMentions); an erasure removes only those values.
func seedPerson(t *testing.T, s *testServer, k string, p person, prefix string) counts {
	t.Helper()
	// Form submissions: by e-mail, by phone, by a custom field holding the phone.
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": prefix + "f1", "email": p.emailSent,
		"first_name": p.first, "last_name": p.last, "name_prefix": "Dr.", "address_street": p.street, "address_house_number": "17",
		"address_city": p.city, "address_postcode": p.postcode, "consent_to_general_contact_email": true,
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
		"consent_source": "street-stall", "consent_ip_address": p.ip, "consent_timestamp": "2024-04-09T10:00:00Z",
		"favourite_colour": "teal", "volunteer": true, "alt_contact": p.phoneSent, "home_town": p.city,
		"survey": map[string]any{"answer": "yes", "mobile": p.phone}})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": prefix + "f2", "phone_number": p.phoneSent,
		"consent_to_general_contact_phone": true, "first_name": p.first})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": prefix + "f3",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d",
		"alt_contact": p.phone, "shirt_size": "L"})
	// Digitisation: by e-mail (upper case), by custom field phone.
	postRecord(t, s, k, digitisationPath, map[string]any{"form_id": "petition", "email": strings.ToUpper(p.email),
		"consent_to_general_contact_email": true, "first_name": p.first, "last_name": p.last, "document_ref": "DOC-77", "digitised_by": "clerk-3"})
	postRecord(t, s, k, digitisationPath, map[string]any{"form_id": "petition", "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "90d", "alt_contact": p.phoneSent, "page": 2})
	// Canvassing: by phone, by e-mail.
	postRecord(t, s, k, canvassingPath, map[string]any{"phone_number": p.phoneSent, "first_name": p.first, "last_name": p.last,
		"address_street": p.street, "address_city": p.city, "address_postcode": p.postcode, "canvasser_id": "cv-9",
		"visited_at": "2024-04-09T17:30:00Z", "outcome": "supportive", "notes": p.first + " asked for a leaflet"})
	postRecord(t, s, k, canvassingPath, map[string]any{"email": p.emailSent, "outcome": "not home"})
	// Phone call tasks: by phone, by a custom field holding the e-mail.
	postRecord(t, s, k, callsPath, map[string]any{"phone_number": p.phone, "first_name": p.first, "last_name": p.last,
		"campaign_id": "camp-1", "status": "done", "outcome": "answered"})
	postRecord(t, s, k, callsPath, map[string]any{"phone_number": "+4930901820", "alt_email": p.emailSent, "campaign_id": "camp-2"})
	return counts{FormSubmissions: 2, DigitisationSubmissions: 1, CanvassingSubmissions: 2, PhoneCallTasks: 1}
}

// seedMentions is how many records of seedPerson only mention the person.
const seedMentions = 3

var ophelia = person{
	email: "ophelia.vantongeren@erasure-test.example", emailSent: "Ophelia.VanTongeren@Erasure-Test.example",
	phone: "+4917612398457", phoneSent: "+49 176 1239 8457",
	first: "Ophelia", last: "Vantongeren", street: "Zephyrhollow Road", city: "Quibbleton", postcode: "ZX9 7QQ", ip: "198.51.100.77",
}

// TestGDPRErasure: the counts are right for a person with records in all four types, matched
// by e-mail, by phone and by custom fields; a repeat returns zeros; non-personal custom fields
// and consent statuses survive; another tenant's identical person is untouched.
func TestGDPRErasure(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := openTenant(s), openTenant(s)
	ka, kb := s.key(a, "all"), s.key(b, "all")
	want := seedPerson(t, s, ka, ophelia, "")
	seedPerson(t, s, kb, ophelia, "")
	submit(t, s, ka, map[string]any{"form_id": "petition", "submission_id": "bystander", "email": "keep@example.org",
		"phone_number": "+4917600000001", "consent_to_general_contact_email": true, "first_name": "Keep"})
	beforeF1 := getSubmission(t, s, ka, "f1")
	bystander := getSubmission(t, s, ka, "bystander")

	got, mentions := decodeErasureMentions(t, call(t, s, "POST", erasePath, ka, map[string]any{"email": ophelia.emailSent, "phoneNumber": ophelia.phoneSent}))
	if got != want || mentions != seedMentions {
		t.Fatalf("counts %+v, removedMentions %d; want %+v, %d", got, mentions, want, seedMentions)
	}

	t.Run("anonymised submission reads with removed fields as null", func(t *testing.T) {
		f1 := getSubmission(t, s, ka, "f1")
		jsonEqual(t, "contact", at(f1, "contact"), map[string]any{"email": nil, "phoneNumber": nil, "firstName": nil, "lastName": nil, "namePrefix": nil})
		jsonEqual(t, "address", at(f1, "address"), map[string]any{"street": nil, "houseNumber": nil, "city": nil, "postcode": nil})
		jsonEqual(t, "payload", at(f1, "payload"), map[string]any{"favourite_colour": "teal", "volunteer": true, "survey": map[string]any{"answer": "yes"}})
		timeAt(t, f1, "anonymisedAt")
		// Consent statuses, times and deadlines survive; ids, form and createdAt too.
		jsonEqual(t, "consents", at(f1, "consents"), at(beforeF1, "consents"))
		for _, k := range []string{"submissionId", "formId", "createdAt"} {
			if at(f1, k) != at(beforeF1, k) {
				t.Errorf("%s changed: %v → %v", k, at(beforeF1, k), at(f1, k))
			}
		}
		// f3 only mentioned the person: the mention goes, the record is not anonymised.
		f3 := getSubmission(t, s, ka, "f3")
		jsonEqual(t, "f3 payload", at(f3, "payload"), map[string]any{"shirt_size": "L"})
		if status(f3, "primaryPurpose") != "granted" || at(f3, "anonymisedAt") != nil {
			t.Errorf("f3 %v", f3)
		}
		f2 := getSubmission(t, s, ka, "f2")
		if status(f2, "generalContactPhone") != "granted" || at(f2, "contact.phoneNumber") != nil || at(f2, "contact.firstName") != nil {
			t.Errorf("f2 %v", f2)
		}
	})
	t.Run("the person is no longer found", func(t *testing.T) {
		for _, q := range [][2]string{{"email", ophelia.email}, {"phone", ophelia.phone}} {
			if subs := at(consentsOf(t, s, ka, q[0], q[1]), "submissions").([]any); len(subs) != 0 {
				t.Errorf("%s still finds %v", q[0], subs)
			}
		}
	})
	t.Run("a repeat answers zeros", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"email": ophelia.email, "phoneNumber": ophelia.phone},
			{"email": ophelia.emailSent},
			{"phoneNumber": ophelia.phoneSent},
		} {
			if got := erase(t, s, ka, body); got != (counts{}) {
				t.Errorf("repeat %v: %+v", body, got)
			}
		}
	})
	t.Run("a bystander of the tenant is untouched", func(t *testing.T) {
		jsonEqual(t, "bystander", getSubmission(t, s, ka, "bystander"), bystander)
	})
	t.Run("the other tenant's identical person is untouched", func(t *testing.T) {
		f1 := getSubmission(t, s, kb, "f1")
		// The withdrawal link names its tenant.
		jsonEqual(t, "other tenant's f1", f1, with(beforeF1, "createdAt", at(f1, "createdAt"), "consents", at(f1, "consents"), "withdrawUrl", at(f1, "withdrawUrl"),
			"preferencesUrl", at(f1, "preferencesUrl")))
		if n := len(at(consentsOf(t, s, kb, "email", ophelia.email), "submissions").([]any)); n != 1 {
			t.Errorf("other tenant finds %d submissions by e-mail, want f1", n)
		}
		if n := len(at(consentsOf(t, s, kb, "phone", ophelia.phone), "submissions").([]any)); n != 1 {
			t.Errorf("other tenant finds %d submissions by phone, want f2 (f1 and f3 only mention the number)", n)
		}
		if got := erase(t, s, kb, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone}); got != want {
			t.Errorf("other tenant's erasure %+v, want %+v", got, want)
		}
	})
	t.Run("the person's new submission after the erasure is found and erasable", func(t *testing.T) {
		submit(t, s, ka, map[string]any{"form_id": "petition", "submission_id": "again", "email": ophelia.email, "consent_to_general_contact_email": true})
		if got := erase(t, s, ka, map[string]any{"email": ophelia.email}); got != (counts{FormSubmissions: 1}) {
			t.Errorf("erasure of the new submission: %+v", got)
		}
	})
}

// TestGDPRMatchModes erases by e-mail alone, then by phone alone, and counts only what each matched.
func TestGDPRMatchModes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	email, phone := "mode@example.org", "+4917612340000"
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "e1", "email": email, "consent_to_general_contact_email": true})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "e2", "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "30d", "backup_address": "MODE@example.org"})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "p1", "phone_number": phone, "consent_to_general_contact_phone": true})
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "p2", "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "30d", "alt_contact": "+49 176 1234 0000"})
	postRecord(t, s, k, callsPath, map[string]any{"phone_number": phone})
	postRecord(t, s, k, canvassingPath, map[string]any{"email": email})
	postRecord(t, s, k, digitisationPath, map[string]any{"form_id": "petition", "phone_number": phone, "consent_to_general_contact_phone": true})

	// e2 and p2 only mention the identifiers: only the mention goes (removedMentions).
	got, mentions := decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"email": "Mode@Example.ORG", "phoneNumber": nil}))
	if got != (counts{FormSubmissions: 1, CanvassingSubmissions: 1}) || mentions != 1 {
		t.Errorf("by e-mail: %+v, %d", got, mentions)
	}
	if subs := at(consentsOf(t, s, k, "phone", phone), "submissions").([]any); len(subs) != 1 {
		t.Errorf("the phone's submissions after erasing the e-mail: %v", subs)
	}
	got, mentions = decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"email": "", "phoneNumber": "+49-176-1234-0000"}))
	if got != (counts{FormSubmissions: 1, DigitisationSubmissions: 1, PhoneCallTasks: 1}) || mentions != 1 {
		t.Errorf("by phone: %+v, %d", got, mentions)
	}
	if got := erase(t, s, k, map[string]any{"email": email, "phoneNumber": phone}); got != (counts{}) {
		t.Errorf("repeat: %+v", got)
	}
	e2 := getSubmission(t, s, k, "e2")
	if len(at(e2, "payload").(map[string]any)) != 0 || at(e2, "anonymisedAt") != nil || status(e2, "primaryPurpose") != "granted" {
		t.Errorf("e2 after erasure: %v", e2)
	}
}

// TestGDPRValidationAndScope covers the 400 bodies of docs/API.md §5 and the scope.
func TestGDPRValidationAndScope(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "gdpr:anonymise")
	other := s.key(tn, "submissions:write,submissions:read,records:write,unsubscribe:write")
	neither := func(name string, body any) apiCase {
		return apiCase{name: name, path: erasePath, key: k, body: body, status: 400, kind: "ValidationError",
			contains: []string{"email", "phoneNumber"}, check: func(t *testing.T, r response) {
				if ks := keysOf(r.JSON(t), ""); !equalStrings(ks, []string{"error", "message"}) {
					t.Errorf("keys %v, want error and message: %s", ks, r.Body)
				}
				if msg := str(r.JSON(t), "message"); !strings.Contains(msg, "at least one") && !strings.Contains(msg, "At least one") {
					t.Errorf("message %q does not say at least one is needed", msg)
				}
			}}
	}
	zero := func(name string, body any) apiCase {
		return apiCase{name: name, path: erasePath, key: k, body: body, status: 200, check: func(t *testing.T, r response) {
			if c := decodeErasure(t, r); c != (counts{}) {
				t.Errorf("counts %+v", c)
			}
		}}
	}
	runCases(t, s, []apiCase{
		neither("empty object", map[string]any{}),
		neither("both null", map[string]any{"email": nil, "phoneNumber": nil}),
		neither("both empty", map[string]any{"email": "", "phoneNumber": ""}),
		neither("only other keys", map[string]any{"phone": "+4915112345678", "name": "x"}),
		{name: "invalid e-mail", path: erasePath, key: k, body: map[string]any{"email": "not-an-email"}, status: 400, kind: "ValidationError", field: "email"},
		{name: "invalid e-mail with valid phone", path: erasePath, key: k, body: map[string]any{"email": "a@b", "phoneNumber": "+4915112345678"}, status: 400, kind: "ValidationError", field: "email"},
		{name: "invalid phone", path: erasePath, key: k, body: map[string]any{"phoneNumber": "0151 123"}, status: 400, kind: "ValidationError", field: "phoneNumber"},
		{name: "e-mail number", path: erasePath, key: k, body: map[string]any{"email": 42}, status: 400, kind: "ValidationError", field: "email"},
		{name: "phone array", path: erasePath, key: k, body: map[string]any{"phoneNumber": []any{"+4915112345678"}}, status: 400, kind: "ValidationError", field: "phoneNumber"},
		{name: "array body", path: erasePath, key: k, body: `[{"email":"a@example.org"}]`, status: 400, kind: "ValidationError", code: "invalid_json"},
		zero("no match by e-mail", map[string]any{"email": "nobody@example.org"}),
		zero("no match by phone", map[string]any{"phoneNumber": "+4915112345678"}),
		zero("no match, e-mail null", map[string]any{"email": nil, "phoneNumber": "+4915112345678"}),
		{name: "no key", path: erasePath, body: map[string]any{"email": "a@example.org"}, status: 401, kind: "Unauthorized"},
		{name: "every other scope", path: erasePath, key: other, body: map[string]any{"email": "a@example.org"}, status: 403, kind: "Forbidden"},
	})
}

// TestGDPRConcurrentErasures: identical erasures at once never count a record twice.
func TestGDPRConcurrentErasures(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	want := seedPerson(t, s, k, ophelia, "")
	const n, writes = 5, 40
	var wg sync.WaitGroup
	results := make([]response, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = send(s, "POST", erasePath, k, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone})
		}()
	}
	// Other people's records are written while the erasures run: none may fail.
	others := make([]response, writes)
	otherErrs := make([]error, writes)
	for i := 0; i < writes; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				others[i], otherErrs[i] = send(s, "POST", acceptPath, k, map[string]any{"form_id": "petition",
					"phone_number": phoneOf(i), "consent_to_general_contact_phone": true})
			} else {
				others[i], otherErrs[i] = send(s, "POST", callsPath, k, map[string]any{"phone_number": phoneOf(i)})
			}
		}()
	}
	wg.Wait()
	for i := range others {
		if otherErrs[i] != nil || others[i].Status/100 != 2 {
			t.Errorf("write %d during the erasures: %v %d %s", i, otherErrs[i], others[i].Status, others[i].Body)
		}
	}
	for i := 0; i < writes; i += 2 {
		if subs := at(consentsOf(t, s, k, "phone", phoneOf(i)), "submissions").([]any); len(subs) != 1 {
			t.Errorf("person %d written during the erasures: %d submissions", i, len(subs))
		}
	}
	var sum counts
	mentions := 0
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		c, m := decodeErasureMentions(t, results[i])
		sum, mentions = sum.add(c), mentions+m
	}
	if sum != want || mentions != seedMentions {
		t.Errorf("counts summed over %d concurrent erasures %+v, removedMentions %d; want %+v, %d", n, sum, mentions, want, seedMentions)
	}
	if got := erase(t, s, k, map[string]any{"email": ophelia.email, "phoneNumber": ophelia.phone}); got != (counts{}) {
		t.Errorf("repeat after the race: %+v", got)
	}
}

// TestGDPRNothingRecoverable is the byte-level test: after an erasure no personal value of the
// person is left in any file of the embedded store (database, WAL, shared memory), in the
// audit log (which lives in those files), or in the server's output.
func TestGDPRNothingRecoverable(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	p := person{
		email: "xanthippe.marlowequist@erasure-proof.example", emailSent: "Xanthippe.MarloweQuist@Erasure-Proof.example",
		phone: "+4917698765432", phoneSent: "+49 176 9876 5432",
		first: "Xanthippe", last: "Marlowequist", street: "Vexillographer Lane", city: "Quorndonshire", postcode: "QZ7 3XV", ip: "203.0.113.219",
	}
	want := seedPerson(t, s, k, p, "")
	// Touch the person through every other operation that sees the values, so that any of them
	// logging or persisting a value would show.
	consentsOf(t, s, k, "email", p.emailSent)
	consentsOf(t, s, k, "phone", p.phoneSent)
	if r := call(t, s, "POST", "/api/v1/brevo/unsubscribe", k, map[string]any{"email": p.email}); r.Status != 200 {
		t.Fatalf("unsubscribe: %d %s", r.Status, r.Body)
	}
	if r := call(t, s, "POST", "/api/v1/mailjet/unsubscribe", k, map[string]any{"phone": p.phoneSent}); r.Status != 200 {
		t.Fatalf("unsubscribe: %d %s", r.Status, r.Body)
	}
	assertCodes(t, call(t, s, "POST", acceptPath, k, map[string]any{"form_id": "petition", "email": p.emailSent, "first_name": p.first,
		"consent_to_general_contact_phone": true, "phone_number": p.phoneSent + "x"}), cPhoneInvalid)
	if r := call(t, s, "POST", erasePath, k, map[string]any{"email": p.emailSent + ".invalid..", "phoneNumber": p.phone}); r.Status != 400 {
		t.Fatalf("invalid erasure: %d %s", r.Status, r.Body)
	}

	needles := []string{p.email, p.phone, p.phoneSent, strings.TrimPrefix(p.phone, "+"), p.first, p.last, p.street, p.city, p.postcode, p.ip}
	// The test can see the values before the erasure: the files hold them.
	found := func(hay []byte, needle string) bool {
		return bytes.Contains(bytes.ToLower(hay), []byte(strings.ToLower(needle)))
	}
	// On MongoDB the database's files are another process's, the operator's to manage: the
	// byte-level part applies to the embedded store.
	embedded := s.getenv("MONGODB_URI") == ""
	var all []byte
	for _, b := range s.dataFiles() {
		all = append(all, b...)
	}
	for _, n := range []string{p.email, p.phone, p.first, p.street} {
		if embedded && !found(all, n) {
			t.Fatalf("before the erasure the store files lack %q: the byte-level test would prove nothing", n)
		}
	}

	if got := erase(t, s, k, map[string]any{"email": p.emailSent, "phoneNumber": p.phoneSent}); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	files := s.dataFiles()
	if len(files) == 0 {
		t.Fatal("no store files")
	}
	for name, b := range files {
		for _, n := range needles {
			if found(b, n) {
				i := bytes.Index(bytes.ToLower(b), []byte(strings.ToLower(n)))
				t.Errorf("%s (%d bytes) still holds %q at %d: %q", name, len(b), n, i, b[max(0, i-80):min(len(b), i+80)])
			}
		}
	}
	for name, out := range map[string]string{"stderr (log)": s.stderr.String(), "stdout": s.stdout.String()} {
		for _, n := range needles {
			if found([]byte(out), n) {
				t.Errorf("the server's %s holds %q", name, n)
			}
		}
	}
	if !strings.Contains(s.stderr.String(), `"route":"/api/v1/gdpr/search-and-anonymise"`) {
		t.Errorf("the request log does not show the erasure at all; is it written to stderr?")
	}
}
