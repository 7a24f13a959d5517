package consent

import (
	"slices"
	"testing"
	"time"
)

func TestValidatePayload(t *testing.T) {
	body := decode(t, `{
		"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"90d",
		"consent_to_general_contact_email":true,"email":"a@example.org",
		"consents":[{"type":"general_contact","granted":true,"deadline":"P1Y"}],
		"address":{"street":"Main St","city":"Springfield","state":"IL","zip":"62701","country":"US"},
		"phone":"+15555550100","street":"Main St","city":"Springfield","state":"IL","zip":"62701","country":"US",
		"newsletter_topic":"climate","age":42,"tags":["a","b"],"opt":null,"nested":{"deep":{"deeper":[1,{"x":true}]}}
	}`)
	sub, codes := Validate(body, nil, testNow, FormRules)
	if codes != nil {
		t.Fatalf("codes = %v", codes)
	}
	want := []string{"address", "age", "city", "consents", "country", "nested", "newsletter_topic", "opt", "phone", "state", "street", "tags", "zip"}
	var keys []string
	for k := range sub.Payload {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("payload keys = %v, want %v", keys, want)
	}
	if sub.Payload["age"] != 42.0 || sub.Payload["opt"] != nil {
		t.Errorf("payload values changed: %v", sub.Payload)
	}
	if arr, ok := sub.Payload["consents"].([]any); !ok || len(arr) != 1 {
		t.Errorf("consents = %#v", sub.Payload["consents"])
	}
	if sub.Contact.PhoneNumber != nil || sub.Address.Street != nil {
		t.Error("alternate shapes leaked into structured fields")
	}
}

func TestValidateExtraKnown(t *testing.T) {
	extra := []string{"document_ref", "digitised_by"}
	body := decode(t, with(`"document_ref":{"box":3,"page":"12"},"digitised_by":null`))
	sub, codes := Validate(body, extra, testNow, FormRules)
	if codes != nil {
		t.Fatalf("codes = %v (extra keys must not count as custom fields)", codes)
	}
	if sub.Payload != nil {
		t.Errorf("Payload = %v", sub.Payload)
	}
	if len(sub.Extra) != 1 || sub.Extra["document_ref"].(map[string]any)["box"] != 3.0 {
		t.Errorf("Extra = %v", sub.Extra)
	}

	// A standard key named in extraKnown keeps its own rules.
	sub, codes = Validate(decode(t, with(`"digitised_by":"clerk-7"`)), []string{"email", "digitised_by"}, testNow, FormRules)
	if codes != nil || sub.EmailKey != "a@example.org" || sub.Extra["email"] != nil || sub.Extra["digitised_by"] != "clerk-7" {
		t.Errorf("codes %v, sub %+v", codes, sub)
	}

	// Without extraKnown the same keys are custom fields.
	_, codes = Validate(decode(t, with(`"document_ref":"r1"`)), nil, testNow, FormRules)
	if !slices.Equal(codes, []string{"consent_to_primary_purpose_missing"}) {
		t.Errorf("codes = %v", codes)
	}
}

func TestValidateOptionalRules(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"empty", `{}`, nil},
		{"custom fields, no consent", `{"canvasser_id":"c1","outcome":"not home","notes":"x"}`, nil},
		{"declined primary with custom", `{"consent_to_primary_purpose":false,"notes":"x"}`, nil},
		{"primary granted needs deadline", `{"consent_to_primary_purpose":true}`, []string{"consent_to_primary_purpose_deadline_missing"}},
		{"email consent needs email", `{"consent_to_general_contact_email":true}`, []string{"consent_to_general_contact_email_missing"}},
		{"bad flag", `{"consent_to_general_contact_phone":"yes"}`, []string{"consent_to_general_contact_phone_invalid"}},
		{"bad deadline", `{"consent_to_general_contact_deadline_interval":"-1d"}`, []string{"consent_to_general_contact_deadline_invalid"}},
		{"bad form_id type", `{"form_id":1}`, []string{"form_id_unknown"}},
		{"bad phone", `{"phone_number":"12"}`, []string{"consent_to_general_contact_phone_invalid"}},
		{"bad name", `{"first_name":[]}`, []string{"first_name_invalid"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub, got := Validate(decode(t, c.body), []string{"canvasser_id", "visited_at", "outcome", "notes"}, testNow, OptionalRules)
			if !slices.Equal(got, c.want) {
				t.Errorf("codes = %v, want %v", got, c.want)
			}
			if sub.Payload != nil {
				t.Errorf("Payload = %v", sub.Payload)
			}
		})
	}
}

func TestValidateNilBody(t *testing.T) {
	sub, codes := Validate(nil, nil, testNow, FormRules)
	if !slices.Equal(codes, []string{"form_id_missing", "consent_missing"}) {
		t.Errorf("codes = %v", codes)
	}
	if sub.Payload != nil || sub.Extra != nil {
		t.Errorf("sub = %+v", sub)
	}
	if _, codes := Validate(nil, nil, testNow, OptionalRules); codes != nil {
		t.Errorf("optional codes = %v", codes)
	}
}

func TestValidateOddGoValues(t *testing.T) {
	// Values encoding/json never produces must not panic either.
	body := map[string]any{
		"form_id": []byte("f1"), "email": 3, "first_name": "\xff\xfe", "submission_id": "a\x00",
		"consent_to_general_contact_email": true, "x": make(chan int),
		"consent_to_primary_purpose_deadline_date": time.Now(),
	}
	_, codes := Validate(body, nil, testNow, FormRules)
	want := []string{"form_id_unknown", "submission_id_invalid", "consent_to_primary_purpose_missing",
		"consent_to_primary_purpose_deadline_invalid", "consent_to_general_contact_email_invalid", "first_name_invalid"}
	if !slices.Equal(codes, want) {
		t.Errorf("codes = %v, want %v", codes, want)
	}
}
