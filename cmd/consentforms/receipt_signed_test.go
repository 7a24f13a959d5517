package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// receiptTerms are the terms a receipt may use from the vocabularies it names: DPV's (the
// ISO/IEC TS 27560 profile's properties and classes), DPV's personal-data and location
// extensions, and Dublin Core's. A term outside this table, or a prefix the receipt's
// @context does not map, is a receipt no JSON-LD reader resolves as meant.
var receiptTerms = map[string][]string{
	"dpv": {"ConsentRecord", "hasDataSubject", "DataSubject", "hasDataController", "DataController", "hasContact", "hasAddress", "hasJurisdiction",
		"hasStorageCondition", "StorageLocation", "StorageDuration", "hasPersonalData", "PersonalData", "hasRecipient",
		"hasConsent", "Consent", "hasPurpose", "Purpose", "hasLegalBasis", "hasConsentStatus", "ConsentGiven",
		"ConsentExpired", "ConsentWithdrawn", "ConsentUnknown", "isIndicatedAtTime", "hasExpiryTime", "hasWithdrawalTime",
		"isIndicatedBy", "hasIndicationMethod", "hasNotice", "ConsentNotice"},
	"pd":  {"EmailAddress", "TelephoneNumber", "Name", "PhysicalAddress"},
	"dct": {"conformsTo", "identifier", "created", "title", "description", "language", "issued", "date"},
}

// namedValues are the keys whose values are terms too.
var namedValues = []string{"@type", "dpv:hasConsentStatus", "dpv:hasLegalBasis", "dpv:isIndicatedBy", "dpv:hasPersonalData", "dpv:hasJurisdiction"}

// checkTerms walks a receipt: every key and every @type (and every value that is a prefixed
// name of a vocabulary of the table) must be a term the table lists, under a prefix @context
// maps; "cf:" terms are the product's own.
func checkTerms(t *testing.T, ctx map[string]any, v any, where string) {
	t.Helper()
	name := func(s string) {
		prefix, term, ok := strings.Cut(s, ":")
		if !ok || strings.Contains(s, "//") || prefix == "loc" && len(term) == 2 {
			if ok && ctx[prefix] == nil {
				t.Errorf("%s: %s uses prefix %s, which @context does not map", where, s, prefix)
			}
			return
		}
		if ctx[prefix] == nil {
			t.Errorf("%s: %s uses prefix %s, which @context does not map", where, s, prefix)
		}
		if terms, known := receiptTerms[prefix]; known && !slices.Contains(terms, term) {
			t.Errorf("%s: %s is not a term of %s", where, s, ctx[prefix])
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "@context" {
				continue
			}
			if !strings.HasPrefix(k, "@") {
				name(k)
			}
			if s, ok := e.(string); ok && slices.Contains(namedValues, k) {
				name(s)
			}
			checkTerms(t, ctx, e, where+"."+k)
		}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && slices.ContainsFunc(namedValues, func(k string) bool { return strings.HasSuffix(where, "."+k) }) {
				name(s)
			}
			checkTerms(t, ctx, e, where)
		}
	}
}

// TestReceiptsOfEveryKindSigned: digitisation and canvassing records answer a receipt as form
// submissions do, each with the fields ISO/IEC TS 27560 marks mandatory (kind, collection
// method, jurisdiction, storage, personal-data categories from the fields stored, recipients,
// events); every term resolves in DPV's vocabularies; ?format=jws is a compact JWS that
// `receipt verify` accepts with the tenant's JWKS (served without credentials) and refuses once
// a byte changes or once its key is left out of the set; after a rotation old receipts still
// verify and new ones name the new key; after erasure the receipt answers without the person.
func TestReceiptsOfEveryKindSigned(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("tenant", "update", "--tenant", tn, "--default-country", "DE")
	s.cli("webhook", "create", "--tenant", tn, "--url", "https://hooks.example.org/consent", "--events", "all")
	submit(t, s, k, map[string]any{"form_id": "petition", "submission_id": "web-1", "email": "ada@example.org", "first_name": "Ada",
		"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "1y"})
	paper := postRecord(t, s, k, digitisationPath, map[string]any{"form_id": "petition", "email": "paper@example.org",
		"consent_to_general_contact_email": true})
	visit := postRecord(t, s, k, canvassingPath, map[string]any{"phone_number": "+4915112345678", "outcome": "supportive", "canvasser_id": "cv-1"})
	cases := []struct{ path, id, kind, method, data string }{
		{"/api/v1/forms/submissions/", "web-1", "formSubmission", "web form", "pd:EmailAddress pd:Name"},
		{digitisationPath + "/", paper, "digitisationSubmission", "paper form, digitised", "pd:EmailAddress"},
		{canvassingPath + "/", visit, "canvassingSubmission", "in person (canvassing)", "pd:TelephoneNumber"},
	}
	rs, cs := receiptSchemas(t)
	for _, c := range cases {
		r := call(t, s, "GET", c.path+c.id+"/receipt", k, nil)
		if r.Status != 200 {
			t.Fatalf("%s receipt: %d %s", c.kind, r.Status, r.Body)
		}
		rec := r.JSON(t)
		checkFields(t, c.kind+" receipt", rec, rs)
		for _, cv := range rec["dpv:hasConsent"].([]any) {
			checkFields(t, c.kind+" consent", cv.(map[string]any), cs)
		}
		checkTerms(t, rec["@context"].(map[string]any), rec, "receipt")
		jsonEqual(t, c.kind+" jurisdiction", rec["dpv:hasJurisdiction"], []any{"loc:DE"})
		var data []string
		for _, d := range rec["dpv:hasPersonalData"].([]any) {
			data = append(data, d.(string))
		}
		if rec["dct:identifier"] != c.id || rec["cf:recordKind"] != c.kind || rec["cf:collectionMethod"] != c.method ||
			strings.Join(data, " ") != c.data || !slices.Contains(rec["dpv:hasRecipient"].([]any), any("webhook hooks.example.org")) ||
			len(rec["dpv:hasStorageCondition"].([]any)) != 2 || rec["dct:conformsTo"] != "https://w3id.org/dpv/schema/iso-27560#record" {
			t.Errorf("%s receipt: %s", c.kind, r.Body)
		}
		if c.kind != "canvassingSubmission" && !strings.Contains(string(r.Body), `"cf:event":"given"`) {
			t.Errorf("%s receipt has no given event: %v", c.kind, rec["cf:events"])
		}
	}
	if g := call(t, s, "GET", digitisationPath+"/web-1/receipt", k, nil); g.Status != 404 {
		t.Errorf("a form submission's id under the digitisation path: %d", g.Status)
	}

	dir := t.TempDir()
	jwks := func(name string) string {
		r := call(t, s, "GET", "/.well-known/jwks.json?tenant="+tn, "", nil)
		if r.Status != 200 {
			t.Fatalf("jwks: %d %s", r.Status, r.Body)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, r.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	signed := func(id, name string) (string, string) {
		r := call(t, s, "GET", digitisationPath+"/"+id+"/receipt?format=jws", k, nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/jose" || strings.Count(string(r.Body), ".") != 2 {
			t.Fatalf("signed receipt: %d %q %s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, r.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		return p, string(r.Body)
	}
	verify := func(file, set string) (map[string]any, error) {
		return s.cliErr("receipt", "verify", "--file", file, "--jwks", set)
	}
	first, token := signed(paper, "first.jws")
	set1 := jwks("set1.json")
	out, err := verify(first, set1)
	if err != nil || out["valid"] != true || out["recordId"] != paper || out["tenant"] != tn || len(out["events"].([]any)) == 0 {
		t.Fatalf("verify: %v %v", out, err)
	}
	oldKid := out["kid"].(string)

	// One byte of the payload changed: refused.
	parts := strings.Split(token, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	payload = []byte(strings.Replace(string(payload), `"cf:event":"given"`, `"cf:event":"givex"`, 1))
	tampered := filepath.Join(dir, "tampered.jws")
	os.WriteFile(tampered, []byte(parts[0]+"."+base64.RawURLEncoding.EncodeToString(payload)+"."+parts[2]), 0o600)
	if out, err := verify(tampered, set1); err == nil {
		t.Errorf("a changed receipt verified: %v", out)
	}

	// A rotation: the old receipt still verifies with the new set; a new one names the new key;
	// a set without the old key refuses the old receipt.
	rot := s.cli("tenant", "rotate-receipt-key", "--tenant", tn)
	if rot["kid"] == oldKid || rot["keys"] != float64(2) {
		t.Fatalf("rotation: %v", rot)
	}
	set2 := jwks("set2.json")
	if out, err := verify(first, set2); err != nil || out["kid"] != oldKid {
		t.Errorf("the receipt signed before the rotation: %v %v", out, err)
	}
	second, _ := signed(paper, "second.jws")
	if out, err := verify(second, set2); err != nil || out["kid"] != rot["kid"] {
		t.Errorf("a receipt signed after the rotation: %v %v", out, err)
	}
	var set map[string][]map[string]any
	b, _ := os.ReadFile(set2)
	json.Unmarshal(b, &set)
	set["keys"] = slices.DeleteFunc(set["keys"], func(k map[string]any) bool { return k["kid"] == oldKid })
	b, _ = json.Marshal(set)
	without := filepath.Join(dir, "without.json")
	os.WriteFile(without, b, 0o600)
	if out, err := verify(first, without); err == nil {
		t.Errorf("a receipt verified by a set without its key: %v", out)
	}
	if r := call(t, s, "GET", "/.well-known/jwks.json?tenant=t_nope", "", nil); r.Status != 404 {
		t.Errorf("jwks of an unknown tenant: %d", r.Status)
	}

	// After erasure the paper record's receipt answers without the person or their data.
	erase(t, s, k, map[string]any{"email": "paper@example.org"})
	rec := call(t, s, "GET", digitisationPath+"/"+paper+"/receipt", k, nil).JSON(t)
	if _, has := rec["dpv:hasDataSubject"]; has || len(rec["dpv:hasPersonalData"].([]any)) != 0 || rec["cf:anonymisedAt"] == nil {
		t.Errorf("the receipt after erasure: %v", rec)
	}
}

// TestReceiptExampleInDocs: the example receipt of docs/API.md §12.3 is valid JSON, holds every
// field the OpenAPI document requires and no other, and every term resolves in the vocabularies
// it names, as a served receipt does.
func TestReceiptExampleInDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### 12.3 ")
	if !ok {
		t.Fatal("docs/API.md has no §12.3")
	}
	_, block, ok := strings.Cut(section, "```json\n")
	block, _, closed := strings.Cut(block, "\n```")
	if !ok || !closed {
		t.Fatal("§12.3 has no ```json example")
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(block), &rec); err != nil {
		t.Fatalf("the example is not JSON: %v", err)
	}
	rs, cs := receiptSchemas(t)
	checkFields(t, "the example receipt", rec, rs)
	for _, c := range rec["dpv:hasConsent"].([]any) {
		checkFields(t, "the example's consent", c.(map[string]any), cs)
	}
	checkTerms(t, rec["@context"].(map[string]any), rec, "receipt")
}
