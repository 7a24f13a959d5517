package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// Whose record it is (docs/API.md §5.1): a record belongs to the identifiers of its own contact
// fields; an identifier in a custom field only mentions another person. These tests run through
// the real server on the configured store (SQLite, or MongoDB with CONSENTFORMS_TEST_STORE=mongo).

// alice stores Alice's submission granting e-mail contact, naming others in custom fields.
func alice(t *testing.T, s *testServer, key, id string, custom map[string]any) {
	t.Helper()
	body := map[string]any{"form_id": "petition", "submission_id": id, "email": "alice@example.org", "first_name": "Alice",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
		"consent_to_general_contact_email": true, "topic": "trees"}
	for k, v := range custom {
		body[k] = v
	}
	submit(t, s, key, body)
}

// assertAliceIntact requires Alice's record as she stored it: her contact, her granted
// consents, no anonymisedAt.
func assertAliceIntact(t *testing.T, s *testServer, key, id string) map[string]any {
	t.Helper()
	sub := getSubmission(t, s, key, id)
	if str(sub, "contact.email") != "alice@example.org" || str(sub, "contact.firstName") != "Alice" || at(sub, "anonymisedAt") != nil {
		t.Errorf("Alice's record changed: %v", sub)
	}
	for _, c := range []string{"primaryPurpose", "generalContactEmail"} {
		if status(sub, c) != "granted" {
			t.Errorf("Alice's %s: %v, want granted", c, at(sub, "consents."+c))
		}
	}
	return sub
}

// TestMentionIsNotOwnership: Bob named in Alice's referred_friend never reads, revokes or exports
// Alice's record; erasing Bob removes only the mention; Carl is mentioned by phone.
func TestMentionIsNotOwnership(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	k, ko := s.key(tn, "all"), s.key(other, "all")
	alice(t, s, k, "alice-1", map[string]any{"referred_friend": "Bob@Example.org",
		"emergency_contact": map[string]any{"name": map[string]any{"given": "Carl"}, "phone": "+49 151 23456789"}})
	subscriber(t, s, k, "carl-1", "", "+4915123456789")
	// The same e-mail address in another tenant is Bob's own record there.
	subscriber(t, s, ko, "bob-elsewhere", "bob@example.org", "")

	empty := map[string]any{"generalContact": map[string]any{"email": "not_granted", "phone": "not_granted"}, "submissions": []any{}}
	t.Run("consent read GET and POST", func(t *testing.T) {
		jsonEqual(t, "GET bob", consentsOf(t, s, k, "email", "bob@example.org"), empty)
		r := call(t, s, "POST", "/api/v1/consents/search", k, map[string]any{"email": "BOB@example.org"})
		jsonEqual(t, "POST bob", r.JSON(t), empty)
		carl := consentsOf(t, s, k, "phone", "+49 151 23456789")
		if subs, _ := at(carl, "submissions").([]any); len(subs) != 1 || str(subs[0], "submissionId") != "carl-1" {
			t.Errorf("Carl's consent read lists %v, want carl-1 only", at(carl, "submissions"))
		}
		if got := consentsOf(t, s, ko, "email", "bob@example.org"); str(got, "generalContact.email") != "granted" {
			t.Errorf("Bob's own record in the other tenant reads %v", got)
		}
	})
	t.Run("export", func(t *testing.T) {
		r := call(t, s, "POST", "/api/v1/gdpr/export", k, map[string]any{"email": "bob@example.org"})
		if r.Status != 200 {
			t.Fatalf("export: %d %s", r.Status, r.Body)
		}
		for _, kind := range []string{"formSubmissions", "digitisationSubmissions", "canvassingSubmissions", "phoneCallTasks"} {
			if l, _ := at(r.JSON(t), "records."+kind).([]any); len(l) != 0 {
				t.Errorf("Bob's export lists %s %v", kind, l)
			}
		}
	})
	t.Run("unsubscribe", func(t *testing.T) {
		assertUnsubscribed(t, call(t, s, "POST", unsubPath("brevo"), k, map[string]any{"email": "bob@example.org"}), 0)
		assertAliceIntact(t, s, k, "alice-1")
		// Carl's own record is his; Alice's mention of his number is not.
		assertUnsubscribed(t, call(t, s, "POST", unsubPath("brevo"), k, map[string]any{"phone": "0049 151 2345 6789"}), 1)
		assertAliceIntact(t, s, k, "alice-1")
	})
	t.Run("erasure removes only the mention", func(t *testing.T) {
		c, mentions := decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"email": "bob@example.org"}))
		if c != (counts{}) || mentions != 1 {
			t.Errorf("erasing Bob: %+v, removedMentions %d; want zeros and 1", c, mentions)
		}
		sub := assertAliceIntact(t, s, k, "alice-1")
		if at(sub, "payload.referred_friend") != nil || str(sub, "payload.topic") != "trees" {
			t.Errorf("Alice's payload after erasing Bob: %v", at(sub, "payload"))
		}
		c, mentions = decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"email": "bob@example.org"}))
		if c != (counts{}) || mentions != 0 {
			t.Errorf("a repeat: %+v, %d; want zeros", c, mentions)
		}
		// Carl: his own record is anonymised, Alice's mention of his number goes.
		c, mentions = decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"phoneNumber": "+44 (0)20 7946 0000"}))
		if c != (counts{}) || mentions != 0 {
			t.Errorf("another number: %+v, %d; want zeros", c, mentions)
		}
		c, mentions = decodeErasureMentions(t, call(t, s, "POST", erasePath, k, map[string]any{"phoneNumber": "+49 (0)151 2345 6789"}))
		if c != (counts{FormSubmissions: 1}) || mentions != 1 {
			t.Errorf("erasing Carl: %+v, removedMentions %d; want 1 form submission and 1", c, mentions)
		}
		sub = assertAliceIntact(t, s, k, "alice-1")
		if at(sub, "payload.emergency_contact.phone") != nil {
			t.Errorf("Carl's number is still in Alice's record: %v", at(sub, "payload"))
		}
		if at(getSubmission(t, s, k, "carl-1"), "anonymisedAt") == nil {
			t.Error("Carl's own record is not anonymised")
		}
		if got := consentsOf(t, s, ko, "email", "bob@example.org"); str(got, "generalContact.email") != "granted" {
			t.Errorf("the other tenant's Bob after the erasure: %v", got)
		}
	})
}

// TestMentionUnsubscribeProviders: each provider's real unsubscribe payload, naming a person
// Alice referred, revokes nothing of Alice's.
func TestMentionUnsubscribeProviders(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	rows := []struct {
		provider, file, contentType string
		named                       []string
	}{
		{"brevo", "brevo_unsubscribe.json", jsonType, []string{"jane.doe@example.com"}},
		{"mailchimp", "mailchimp_unsubscribe.form", formType, []string{"api+unsub@example.com", "+44 20 7946 0958"}},
		{"sendgrid", "sendgrid_batch.json", jsonType, []string{"jane.doe@example.com", "john.roe@example.com"}},
		{"mailjet", "mailjet_unsub.json", jsonType, []string{"jane.doe@example.com"}},
		{"postmark", "postmark_subscription_change.json", jsonType, []string{"jane.doe@example.com"}},
	}
	for _, r := range rows {
		t.Run(r.provider, func(t *testing.T) {
			k := s.key(openTenant(s), "all")
			custom := map[string]any{}
			for i, n := range r.named {
				custom["referred_friend_"+strconv.Itoa(i)] = n
			}
			alice(t, s, k, "alice-1", custom)
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(r.provider), k, providerPayload(t, r.file), r.contentType), 0)
			assertAliceIntact(t, s, k, "alice-1")
		})
	}
}

// TestMentionAdminPages: the staff person search lists the records that mention a person apart
// from theirs, and the erase preview names both groups.
func TestMentionAdminPages(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	alice(t, s, k, "alice-1", map[string]any{"referred_friend": "bob@example.org"})
	subscriber(t, s, k, "bob-1", "bob@example.org", "")
	s.cli("staff", "create", "--email", "sup@example.org", "--password", "pass-word-123", "--role", "support", "--tenant", tn)
	sup := newAdminClient(t, s)
	sup.signIn("sup@example.org", "pass-word-123")
	sup.get("/admin/submissions/find")
	st, body, _ := sup.post("/admin/submissions/find", url.Values{"email": {"bob@example.org"}})
	own, mentions, _ := strings.Cut(body, `data-testid="person-mentions"`)
	if st != 200 || !strings.Contains(own, `data-record-id="bob-1"`) || strings.Contains(own, `data-record-id="alice-1"`) ||
		!strings.Contains(mentions, `data-record-id="alice-1"`) || !strings.Contains(body, "1 record of someone else that mention this person") {
		t.Errorf("person search: %d\n%s", st, body)
	}
	st, body, _ = sup.post("/admin/anonymise/preview", url.Values{"email": {"bob@example.org"}})
	if st != 200 || !strings.Contains(strings.Join(strings.Fields(body), " "), "1 record of this person; 1 record of someone else that mentions them — only the mention is removed.") {
		t.Errorf("erase preview: %d\n%s", st, body)
	}
}
