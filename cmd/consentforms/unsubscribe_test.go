package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	jsonType = "Content-Type: application/json"
	formType = "Content-Type: application/x-www-form-urlencoded"
)

func unsubPath(provider string) string { return "/api/v1/" + provider + "/unsubscribe" }

// providerPayload reads a provider's real webhook body from the adapters' testdata.
func providerPayload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tenants", "unsubscribe", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// subscriber stores a submission granting primary purpose and general contact consent by
// e-mail and by phone (each channel only when its identifier is given).
func subscriber(t *testing.T, s *testServer, key, id, email, phone string) {
	t.Helper()
	body := map[string]any{"form_id": "petition", "submission_id": id, "email": email,
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": true, "phone_number": phone,
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y", "topic": "trees"}
	if email == "" {
		delete(body, "email")
		body["consent_to_general_contact_email"] = false
	}
	if phone == "" {
		delete(body, "phone_number")
		body["consent_to_general_contact_phone"] = false
	}
	submit(t, s, key, body)
}

// assertRevoked requires both general-contact consents revoked (with revokedAt) and primary
// purpose still granted.
func assertRevoked(t *testing.T, s *testServer, key, id string) {
	t.Helper()
	sub := getSubmission(t, s, key, id)
	for _, c := range []string{"generalContactEmail", "generalContactPhone"} {
		if status(sub, c) != "revoked" {
			t.Errorf("%s %s: %v, want revoked", id, c, at(sub, "consents."+c))
		} else {
			timeAt(t, sub, "consents."+c+".revokedAt")
		}
	}
	if status(sub, "primaryPurpose") != "granted" || at(sub, "consents.primaryPurpose.revokedAt") != nil {
		t.Errorf("%s primary purpose changed: %v", id, at(sub, "consents.primaryPurpose"))
	}
}

// assertUntouched requires the submission's consents as the subscriber stored them.
func assertUntouched(t *testing.T, s *testServer, key, id string) {
	t.Helper()
	sub := getSubmission(t, s, key, id)
	for _, c := range []string{"primaryPurpose", "generalContactEmail", "generalContactPhone"} {
		if status(sub, c) != "granted" || at(sub, "consents."+c+".revokedAt") != nil {
			t.Errorf("%s %s changed: %v", id, c, at(sub, "consents."+c))
		}
	}
}

// assertUnsubscribed requires 200 {"success":true,"message":"... N revoked ..."}.
func assertUnsubscribed(t *testing.T, r response, revoked int) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	if ks := keysOf(m, ""); !equalStrings(ks, []string{"message", "success"}) || m["success"] != true {
		t.Errorf("body %s, want {success: true, message}", r.Body)
	}
	if msg := str(m, "message"); !strings.Contains(msg, strconv.Itoa(revoked)+" revoked") {
		t.Errorf("message %q does not say %d revoked", msg, revoked)
	}
}

// TestUnsubscribeProviderPayloads sends each provider's real webhook payload through the real
// server: the people it unsubscribes lose both general-contact consents, nothing else changes.
func TestUnsubscribeProviderPayloads(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	type row struct {
		provider, file, contentType string
		revoked                     []string // e-mails the payload unsubscribes
		kept                        []string // e-mails in the payload (or near it) that must stay granted
	}
	rows := []row{
		{"brevo", "brevo_unsubscribe.json", jsonType, []string{"jane.doe@example.com"}, []string{"john.roe@example.com"}},
		{"brevo", "brevo_transactional_unsubscribed.json", jsonType, []string{"jane.doe@example.com"}, nil},
		{"brevo", "brevo_batch.json", jsonType, []string{"john.roe@example.com"}, []string{"jane.doe@example.com", "bounce@example.com"}},
		{"mailchimp", "mailchimp_unsubscribe.form", formType, []string{"api+unsub@example.com"}, []string{"api@example.com"}},
		{"mailchimp", "mailchimp_delete.form", formType, []string{"john.roe@example.com"}, nil},
		{"sendgrid", "sendgrid_batch.json", jsonType, []string{"jane.doe@example.com", "john.roe@example.com"}, []string{"ann.poe@example.com"}},
		{"mailjet", "mailjet_unsub.json", jsonType, []string{"jane.doe@example.com"}, nil},
		{"mailjet", "mailjet_batch.json", jsonType, []string{"john.roe@example.com", "ann.poe@example.com"}, []string{"bounce@example.com"}},
		{"postmark", "postmark_subscription_change.json", jsonType, []string{"jane.doe@example.com"}, nil},
		// Events that are not unsubscribes: 200, nothing changes.
		{"brevo", "brevo_delivered.json", jsonType, nil, []string{"jane.doe@example.com"}},
		{"mailchimp", "mailchimp_subscribe.form", formType, nil, []string{"api@example.com"}},
		{"mailchimp", "mailchimp_cleaned.form", formType, nil, []string{"bounce@example.com"}},
		{"mailjet", "mailjet_open.json", jsonType, nil, []string{"jane.doe@example.com"}},
		{"postmark", "postmark_bounce.json", jsonType, nil, []string{"bounce@example.com"}},
		{"postmark", "postmark_resubscribe.json", jsonType, nil, []string{"jane.doe@example.com"}},
	}
	for _, r := range rows {
		t.Run(r.provider+"/"+r.file, func(t *testing.T) {
			tn := openTenant(s)
			k := s.key(tn, "submissions:write,submissions:read,unsubscribe:write")
			ids := map[string]string{}
			for i, email := range append(append([]string{}, r.revoked...), r.kept...) {
				ids[email] = "sub-" + strconv.Itoa(i)
				// Mailchimp's unsubscribe payload carries the person's phone in its merge fields too.
				phone := phoneOf(100 + i)
				if email == "api+unsub@example.com" {
					phone = "+442079460958"
				}
				subscriber(t, s, k, ids[email], email, phone)
			}
			resp := call(t, s, "POST", unsubPath(r.provider), k, providerPayload(t, r.file), r.contentType)
			assertUnsubscribed(t, resp, len(r.revoked))
			for _, e := range r.revoked {
				assertRevoked(t, s, k, ids[e])
			}
			for _, e := range r.kept {
				assertUntouched(t, s, k, ids[e])
			}
			// The provider retries or repeats: nothing further changes.
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(r.provider), k, providerPayload(t, r.file), r.contentType), 0)
			for _, e := range r.kept {
				assertUntouched(t, s, k, ids[e])
			}
		})
	}
	t.Run("mailchimp unsubscribe by the merge phone alone", func(t *testing.T) {
		tn := openTenant(s)
		k := s.key(tn, "all")
		subscriber(t, s, k, "phone-only", "", "+442079460958")
		assertUnsubscribed(t, call(t, s, "POST", unsubPath("mailchimp"), k, providerPayload(t, "mailchimp_unsubscribe.form"), formType), 1)
		sub := getSubmission(t, s, k, "phone-only")
		if status(sub, "generalContactPhone") != "revoked" || status(sub, "primaryPurpose") != "granted" {
			t.Errorf("consents %v", at(sub, "consents"))
		}
	})
}

// TestUnsubscribeGeneric sends the generic {email, phone} body (docs/API.md §8.1) to every
// provider path.
func TestUnsubscribeGeneric(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for i, p := range []string{"brevo", "mailchimp", "sendgrid", "mailjet", "postmark"} {
		t.Run(p, func(t *testing.T) {
			tn, other := openTenant(s), openTenant(s)
			k, ko := s.key(tn, "all"), s.key(other, "all")
			phone := phoneOf(200 + i)
			subscriber(t, s, k, "by-email-1", "generic@example.org", phoneOf(300+i))
			subscriber(t, s, k, "by-email-2", "Generic@Example.org", "")
			subscriber(t, s, k, "by-phone", "phone-person@example.org", phone)
			subscriber(t, s, k, "bystander", "bystander@example.org", phoneOf(400+i))
			subscriber(t, s, ko, "by-email-1", "generic@example.org", phoneOf(300+i))
			// The second submission of the e-mail has no phone consent: it still counts as revoked (its e-mail consent).
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(p), k, map[string]any{"email": "GENERIC@example.org"}), 2)
			assertRevoked(t, s, k, "by-email-1")
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(p), k, map[string]any{"phone": strings.ReplaceAll(phone, "7946", " 7946 ")}), 1)
			assertRevoked(t, s, k, "by-phone")
			assertUntouched(t, s, k, "bystander")
			assertUntouched(t, s, ko, "by-email-1")
			// Idempotent.
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(p), k, map[string]any{"email": "generic@example.org", "phone": phone}), 0)
			// No match.
			assertUnsubscribed(t, call(t, s, "POST", unsubPath(p), k, map[string]any{"email": "nobody@example.org"}), 0)
			// The aggregate read agrees.
			got := consentsOf(t, s, k, "email", "generic@example.org")
			jsonEqual(t, "generalContact", at(got, "generalContact"), map[string]any{"email": "revoked", "phone": "revoked"})

			neither := func(name string, body any) apiCase {
				return apiCase{name: name, path: unsubPath(p), key: k, body: body, status: 400, kind: "ValidationError",
					check: func(t *testing.T, r response) {
						msg := str(r.JSON(t), "message")
						if !strings.Contains(msg, "email") || !strings.Contains(msg, "phone") {
							t.Errorf("message %q names neither email nor phone", msg)
						}
					}}
			}
			runCases(t, s, []apiCase{
				neither("empty object", map[string]any{}),
				neither("both empty", map[string]any{"email": "", "phone": ""}),
				neither("both null", map[string]any{"email": nil, "phone": nil}),
				neither("blank", map[string]any{"email": "  "}),
				neither("other keys only", map[string]any{"phoneNumber": "+4915112345678"}),
				{name: "invalid e-mail", path: unsubPath(p), key: k, body: map[string]any{"email": "not-an-email"}, status: 400, kind: "ValidationError", field: "email"},
				{name: "invalid phone", path: unsubPath(p), key: k, body: map[string]any{"phone": "0151"}, status: 400, kind: "ValidationError", field: "phone"},
				{name: "e-mail number", path: unsubPath(p), key: k, body: map[string]any{"email": 5}, status: 400, kind: "ValidationError"},
				{name: "not JSON", path: unsubPath(p), key: k, body: "{nope", status: 400, kind: "ValidationError"},
			})
		})
	}
	t.Run("unknown providers", func(t *testing.T) {
		tn := openTenant(s)
		k := s.key(tn, "all")
		for _, p := range []string{"acme", "sendinblue", "mailchimp2", "brevo-x", "campaign"} {
			r := call(t, s, "POST", unsubPath(p), k, map[string]any{"email": "a@example.org"})
			if r.Status != 404 || str(r.JSON(t), "error") != "NotFound" {
				t.Errorf("%s: %d %s", p, r.Status, r.Body)
			}
		}
	})
}

func basic(user, pass string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// TestUnsubscribeAuth covers the credentials of docs/API.md §8.3: bearer everywhere, Basic on Mailjet
// and Postmark only, Mailchimp's URL token and unauthenticated GET.
func TestUnsubscribeAuth(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	k := s.key(tn, "unsubscribe:write")
	noScope := s.key(tn, "submissions:write,submissions:read,gdpr:anonymise,records:write")
	reader := s.key(tn, "all")
	tok := s.cli("token", "create", "--tenant", tn, "--provider", "mailchimp")
	token, _ := tok["token"].(string)
	if token == "" || tok["id"] == nil {
		t.Fatalf("token create printed %v", tok)
	}
	otherTok := s.cli("token", "create", "--tenant", other, "--provider", "mailchimp")["token"].(string)
	if _, err := s.cliErr("token", "create", "--tenant", tn, "--provider", "brevo"); err == nil {
		t.Error("a token for brevo was issued")
	}
	if _, err := s.cliErr("token", "create", "--tenant", "t_nope", "--provider", "mailchimp"); err == nil {
		t.Error("a token for an unknown tenant was issued")
	}
	// A token of the right shape whose secret is wrong.
	id, _, _ := strings.Cut(strings.TrimPrefix(token, "mct_"), "_")
	wrongSecret := "mct_" + id + "_" + strings.Repeat("a", 32)

	body := map[string]any{"email": "nobody@example.org"}
	mc := providerPayload(t, "mailchimp_unsubscribe.form")
	ok := func(name, method, path, key string, body any, headers ...string) apiCase {
		return apiCase{name: name, method: method, path: path, key: key, body: body, headers: headers, status: 200}
	}
	denied := func(name, path, key string, body any, headers ...string) apiCase {
		return apiCase{name: name, path: path, key: key, body: body, headers: headers, status: 401, kind: "Unauthorized"}
	}
	cases := []apiCase{}
	for _, p := range []string{"brevo", "mailchimp", "sendgrid", "mailjet", "postmark"} {
		cases = append(cases,
			ok(p+" bearer", "POST", unsubPath(p), k, body),
			ok(p+" bearer all", "POST", unsubPath(p), reader, body),
			denied(p+" no credentials", unsubPath(p), "", body),
			denied(p+" unknown key", unsubPath(p), "cf_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567", body),
			apiCase{name: p + " key without the scope", path: unsubPath(p), key: noScope, body: body, status: 403, kind: "Forbidden"},
		)
	}
	cases = append(cases,
		ok("mailjet basic", "POST", unsubPath("mailjet"), "", body, basic("mailjet", k)),
		ok("mailjet basic without user", "POST", unsubPath("mailjet"), "", body, basic("", k)),
		ok("postmark basic", "POST", unsubPath("postmark"), "", body, basic("postmark", k)),
		ok("postmark basic with its real payload", "POST", unsubPath("postmark"), "", providerPayload(t, "postmark_subscription_change.json"), basic("x", k)),
		denied("mailjet basic wrong password", unsubPath("mailjet"), "", body, basic("mailjet", k+"x")),
		denied("mailjet basic key as user", unsubPath("mailjet"), "", body, basic(k, "")),
		denied("mailjet basic garbage", unsubPath("mailjet"), "", body, "Authorization: Basic !!!"),
		apiCase{name: "postmark basic key without the scope", path: unsubPath("postmark"), body: body, headers: []string{basic("x", noScope)}, status: 403, kind: "Forbidden"},
		denied("brevo basic", unsubPath("brevo"), "", body, basic("brevo", k)),
		denied("sendgrid basic", unsubPath("sendgrid"), "", body, basic("sendgrid", k)),
		denied("mailchimp basic", unsubPath("mailchimp"), "", body, basic("mailchimp", k)),
		denied("basic on accept-submission", acceptPath, "", validEmailSub, basic("x", reader)),
		denied("basic on erasure", erasePath, "", map[string]any{"email": "a@example.org"}, basic("x", reader)),
		// Mailchimp's URL check and token.
		ok("mailchimp GET without credentials", "GET", unsubPath("mailchimp"), "", nil),
		ok("mailchimp GET with a bad token", "GET", unsubPath("mailchimp")+"?token=nonsense", "", nil),
		ok("mailchimp token", "POST", unsubPath("mailchimp")+"?token="+url.QueryEscape(token), "", mc, formType),
		ok("mailchimp token with the generic body", "POST", unsubPath("mailchimp")+"?token="+url.QueryEscape(token), "", body),
		denied("mailchimp wrong token secret", unsubPath("mailchimp")+"?token="+url.QueryEscape(wrongSecret), "", mc, formType),
		denied("mailchimp malformed token", unsubPath("mailchimp")+"?token=mct_nonsense", "", mc, formType),
		denied("mailchimp API key as token", unsubPath("mailchimp")+"?token="+url.QueryEscape(k), "", mc, formType),
		denied("mailchimp token on brevo", unsubPath("brevo")+"?token="+url.QueryEscape(token), "", body),
		denied("mailchimp token on mailjet", unsubPath("mailjet")+"?token="+url.QueryEscape(token), "", body),
		denied("mailchimp token on sendgrid", unsubPath("sendgrid")+"?token="+url.QueryEscape(token), "", body),
		denied("mailchimp token on accept-submission", acceptPath+"?token="+url.QueryEscape(token), "", validEmailSub),
		denied("mailchimp token on consents", "/api/v1/consents?email=a%40example.org&token="+url.QueryEscape(token), "", nil),
		denied("mailchimp token as bearer", unsubPath("mailchimp"), token, body),
	)
	for i := range cases {
		if strings.HasPrefix(cases[i].name, "mailchimp token on consents") {
			cases[i].method = "GET"
		}
	}
	runCases(t, s, cases)

	t.Run("a mailchimp token revokes in its own tenant only", func(t *testing.T) {
		w := s.key(tn, "submissions:write,submissions:read")
		wo := s.key(other, "submissions:write,submissions:read")
		subscriber(t, s, w, "mc-1", "api+unsub@example.com", "+447700900001")
		subscriber(t, s, wo, "mc-1", "api+unsub@example.com", "+447700900001")
		assertUnsubscribed(t, call(t, s, "POST", unsubPath("mailchimp")+"?token="+url.QueryEscape(token), "", mc, formType), 1)
		assertRevoked(t, s, w, "mc-1")
		assertUntouched(t, s, wo, "mc-1")
		assertUnsubscribed(t, call(t, s, "POST", unsubPath("mailchimp")+"?token="+url.QueryEscape(otherTok), "", mc, formType), 1)
		assertRevoked(t, s, wo, "mc-1")
	})
}

// TestUnsubscribeSendGridSigned covers SendGrid's signed event webhook: an ECDSA P-256
// signature over timestamp + body, checked with the tenant's stored public key.
func TestUnsubscribeSendGridSigned(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other, unkeyed := openTenant(s), openTenant(s), openTenant(s)
	w := s.key(tn, "submissions:write,submissions:read")
	wo := s.key(other, "submissions:write,submissions:read")
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherPriv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	otherDER, _ := x509.MarshalPKIXPublicKey(&otherPriv.PublicKey)
	got := s.cli("tenant", "set-sendgrid-key", "--tenant", tn, "--public-key", base64.StdEncoding.EncodeToString(der))
	jsonEqual(t, "set-sendgrid-key", got, map[string]any{"id": tn, "sendgridPublicKey": true})
	// PEM as pasted works too.
	s.cli("tenant", "set-sendgrid-key", "--tenant", other, "--public-key",
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: otherDER})))
	rsaLike := base64.StdEncoding.EncodeToString([]byte("not a key"))
	for _, bad := range [][]string{
		{"--tenant", tn, "--public-key", rsaLike},
		{"--tenant", tn, "--public-key", ""},
		{"--tenant", "t_nope", "--public-key", base64.StdEncoding.EncodeToString(der)},
	} {
		if _, err := s.cliErr(append([]string{"tenant", "set-sendgrid-key"}, bad...)...); err == nil {
			t.Errorf("set-sendgrid-key %v succeeded", bad)
		}
	}

	payload := providerPayload(t, "sendgrid_batch.json")
	sign := func(key *ecdsa.PrivateKey, ts string, body []byte) string {
		h := sha256.Sum256(append([]byte(ts), body...))
		sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(sig)
	}
	nowUnix := time.Now().Unix()
	now := strconv.FormatInt(nowUnix, 10)
	signed := func(key *ecdsa.PrivateKey, ts string, signedBody []byte) []string {
		return []string{jsonType, "X-Twilio-Email-Event-Webhook-Signature: " + sign(key, ts, signedBody),
			"X-Twilio-Email-Event-Webhook-Timestamp: " + ts}
	}
	path := unsubPath("sendgrid") + "?tenant=" + tn
	denied := func(name, path string, headers []string) apiCase {
		return apiCase{name: name, path: path, body: payload, headers: headers, status: 401, kind: "Unauthorized"}
	}
	old := strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)
	future := strconv.FormatInt(time.Now().Add(10*time.Minute).Unix(), 10)
	tampered := []byte(strings.Replace(string(payload), "john.roe", "jim.roe", 1))
	runCases(t, s, []apiCase{
		denied("bad signature", path, []string{jsonType, "X-Twilio-Email-Event-Webhook-Signature: " + base64.StdEncoding.EncodeToString([]byte("nope")),
			"X-Twilio-Email-Event-Webhook-Timestamp: " + now}),
		denied("signature not base64", path, []string{jsonType, "X-Twilio-Email-Event-Webhook-Signature: ***", "X-Twilio-Email-Event-Webhook-Timestamp: " + now}),
		denied("signed by another key", path, signed(otherPriv, now, payload)),
		denied("body changed after signing", path, signed(priv, now, tampered)),
		denied("timestamp changed after signing", path, append(signed(priv, now, payload)[:2], "X-Twilio-Email-Event-Webhook-Timestamp: "+strconv.FormatInt(nowUnix-1, 10))),
		denied("old timestamp", path, signed(priv, old, payload)),
		denied("future timestamp", path, signed(priv, future, payload)),
		denied("no timestamp", path, signed(priv, now, payload)[:2]),
		denied("no tenant", unsubPath("sendgrid"), signed(priv, now, payload)),
		denied("unknown tenant", unsubPath("sendgrid")+"?tenant=t_nope", signed(priv, now, payload)),
		denied("tenant without a key", unsubPath("sendgrid")+"?tenant="+unkeyed, signed(priv, now, payload)),
		denied("another tenant's key", unsubPath("sendgrid")+"?tenant="+other, signed(priv, now, payload)),
		denied("signature on brevo", unsubPath("brevo")+"?tenant="+tn, signed(priv, now, payload)),
		denied("signature on mailjet", unsubPath("mailjet")+"?tenant="+tn, signed(priv, now, payload)),
	})

	// Nothing above changed anything; a good signature unsubscribes in the named tenant only.
	subscriber(t, s, w, "jane", "jane.doe@example.com", phoneOf(1))
	subscriber(t, s, w, "john", "john.roe@example.com", phoneOf(2))
	subscriber(t, s, w, "ann", "ann.poe@example.com", phoneOf(3))
	subscriber(t, s, wo, "jane", "jane.doe@example.com", phoneOf(1))
	for _, id := range []string{"jane", "john", "ann"} {
		assertUntouched(t, s, w, id)
	}
	r := call(t, s, "POST", path, "", payload, signed(priv, now, payload)...)
	assertUnsubscribed(t, r, 2)
	assertRevoked(t, s, w, "jane")
	assertRevoked(t, s, w, "john")
	assertUntouched(t, s, w, "ann")
	assertUntouched(t, s, wo, "jane")
	// A replay inside the window is harmless: idempotent.
	assertUnsubscribed(t, call(t, s, "POST", path, "", payload, signed(priv, now, payload)...), 0)
	// The other tenant's own key works for it.
	assertUnsubscribed(t, call(t, s, "POST", unsubPath("sendgrid")+"?tenant="+other, "", payload, signed(otherPriv, now, payload)...), 1)
	assertRevoked(t, s, wo, "jane")
}
