package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// receiptSchemas are the Receipt and ReceiptConsent schemas of the OpenAPI document: the
// field list of the ISO/IEC TS 27560 DPV profile as the product writes it (the profile
// publishes no JSON Schema of its own).
func receiptSchemas(t *testing.T) (receipt, consent map[string]any) {
	t.Helper()
	b, err := os.ReadFile("../../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := at(doc, "components.schemas").(map[string]any)
	return schemas["Receipt"].(map[string]any), schemas["ReceiptConsent"].(map[string]any)
}

// checkFields requires every field the schema requires and no field it does not name, and the
// constant values it fixes.
func checkFields(t *testing.T, what string, v map[string]any, schema map[string]any) {
	t.Helper()
	props := schema["properties"].(map[string]any)
	for _, r := range schema["required"].([]any) {
		if _, ok := v[r.(string)]; !ok {
			t.Errorf("%s lacks the profile's field %s: %v", what, r, v)
		}
	}
	for k, x := range v {
		p, ok := props[k].(map[string]any)
		if !ok {
			t.Errorf("%s has %s, which the profile does not name", what, k)
			continue
		}
		if c, fixed := p["const"]; fixed && x != c {
			t.Errorf("%s.%s = %v, want %v", what, k, x, c)
		}
		if e, listed := p["enum"].([]any); listed && !slices.Contains(e, x) {
			t.Errorf("%s.%s = %v, not one of %v", what, k, x, e)
		}
	}
}

// validReceipt checks a receipt against the profile's field list and returns its consents by name.
func validReceipt(t *testing.T, r map[string]any) map[string]map[string]any {
	t.Helper()
	rs, cs := receiptSchemas(t)
	checkFields(t, "receipt", r, rs)
	out := map[string]map[string]any{}
	for _, c := range at(r, "dpv:hasConsent").([]any) {
		m := c.(map[string]any)
		checkFields(t, "consent "+str(m, "dct:identifier"), m, cs)
		out[str(m, "dct:identifier")] = m
	}
	if len(out) != 3 {
		t.Errorf("receipt has consents %v, want the three of the record", out)
	}
	return out
}

// TestReceipt: GET /api/v1/forms/submissions/{id}/receipt in the ISO/IEC TS 27560 DPV profile:
// the record id, the subject as a keyed hash (never the address), the tenant as controller, each
// consent with purpose, status, times, deadline, the exact notice and its hash, the method of
// collection and the proof; 404 for another tenant's id, 403 without submissions:read; still
// answered after erasure, without the subject; part of the access export.
func TestReceipt(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn, other := openTenant(s), openTenant(s)
	k := s.key(tn, "all")
	notice := "Ich möchte Neuigkeiten per E-Mail erhalten.\nAbmeldung jederzeit."
	v := publish(s, tn, "petition", "general_contact_email", "de", notice)
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "r1", "email": "Ada@Example.org",
		"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "1y",
		"consent_source": "petition page", "consent_ip_address": "192.0.2.7", "consent_timestamp": "2026-11-20T10:00:00+01:00"})
	path := "/api/v1/forms/submissions/r1/receipt"
	r := call(t, s, "GET", path, k, nil)
	if r.Status != 200 {
		t.Fatalf("receipt: %d %s", r.Status, r.Body)
	}
	if strings.Contains(strings.ToLower(string(r.Body)), "ada@example.org") {
		t.Errorf("the receipt names the address: %s", r.Body)
	}
	rec := r.JSON(t)
	consents := validReceipt(t, rec)
	if rec["dct:identifier"] != "r1" || str(rec, "dpv:hasDataController.dct:identifier") != tn || str(rec, "cf:formId") != "petition" {
		t.Errorf("receipt header %v", rec)
	}
	if subj := str(rec, "dpv:hasDataSubject.dct:identifier"); len(subj) < 32 {
		t.Errorf("subject reference %q, want the keyed hash", subj)
	}
	email := consents["generalContactEmail"]
	sub := getSubmission(t, s, k, "r1")
	if email["dpv:hasConsentStatus"] != "dpv:ConsentGiven" || email["cf:status"] != "granted" ||
		email["dpv:isIndicatedAtTime"] != at(sub, "consents.generalContactEmail.grantedAt") ||
		email["dpv:hasExpiryTime"] != at(sub, "consents.generalContactEmail.deadline") || email["dpv:hasExpiryTime"] == nil ||
		email["dpv:hasIndicationMethod"] != "petition page" {
		t.Errorf("e-mail consent %v; record %v", email, at(sub, "consents.generalContactEmail"))
	}
	jsonEqual(t, "proof", email["cf:proof"], map[string]any{"source": "petition page", "ipAddress": "192.0.2.7", "timestamp": "2026-11-20T10:00:00+01:00"})
	n := email["dpv:hasNotice"].(map[string]any)
	if n["dct:description"] != notice || n["cf:sha256"] != sha(notice) || n["dct:identifier"] != v["version"] || n["dct:language"] != "de" {
		t.Errorf("notice %v; want the exact text %q, its hash and version %v", n, notice, v["version"])
	}
	if consents["primaryPurpose"]["dpv:hasNotice"] != nil || consents["primaryPurpose"]["dpv:hasConsentStatus"] != "dpv:ConsentUnknown" {
		t.Errorf("primary purpose (not granted, no text): %v", consents["primaryPurpose"])
	}

	// The receipt is part of the access export.
	exp := call(t, s, "POST", exportPath, k, map[string]any{"email": "ada@example.org"}).JSON(t)
	receipts, _ := exp["receipts"].([]any)
	if len(receipts) != 1 || str(receipts[0], "dct:identifier") != "r1" {
		t.Fatalf("export receipts = %v", exp["receipts"])
	}
	validReceipt(t, receipts[0].(map[string]any))

	// Scope and tenant.
	if g := call(t, s, "GET", path, s.key(other, "all"), nil); g.Status != 404 || g.JSON(t)["error"] != "NotFound" {
		t.Errorf("another tenant's receipt: %d %s", g.Status, g.Body)
	}
	if g := call(t, s, "GET", path, s.key(tn, "submissions:write"), nil); g.Status != 403 {
		t.Errorf("without submissions:read: %d", g.Status)
	}
	if g := call(t, s, "GET", "/api/v1/forms/submissions/nope/receipt", k, nil); g.Status != 404 {
		t.Errorf("unknown id: %d", g.Status)
	}

	// After erasure: still answered, without the subject, the IP address gone, the notice kept.
	erase(t, s, k, map[string]any{"email": "ada@example.org"})
	r = call(t, s, "GET", path, k, nil)
	if r.Status != 200 {
		t.Fatalf("receipt after erasure: %d %s", r.Status, r.Body)
	}
	after := r.JSON(t)
	consents = validReceipt(t, after)
	if _, has := after["dpv:hasDataSubject"]; has || after["cf:anonymisedAt"] == nil {
		t.Errorf("after erasure the receipt still has a subject, or no anonymisedAt: %v", after)
	}
	email = consents["generalContactEmail"]
	if at(email, "cf:proof.ipAddress") != nil || at(email, "dpv:hasNotice.dct:description") != notice || email["dpv:hasConsentStatus"] != "dpv:ConsentGiven" {
		t.Errorf("after erasure the e-mail consent reads %v", email)
	}
}
