package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAnyJSONPayloadRoundTrips: custom fields are any JSON a client sends — keys with dots or
// a leading '$', empty keys, arrays nested in arrays, big numbers, unicode — and read back
// exactly as sent.
func TestAnyJSONPayloadRoundTrips(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	k := s.key(s.tenant(), "all")
	custom := `{"utm.source":"newsletter","$where":"not an operator","":"empty key",` +
		`"nested":{"a.b":{"$c":[1,[2,[3,{"d.e":null}]]]}},"matrix":[[1,2],[3,4]],"big":1e300,"name_ü":"ölçü 名前"}`
	var want map[string]any
	if err := json.Unmarshal([]byte(custom), &want); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"form_id": "petition", "submission_id": "odd-keys", "consent_to_primary_purpose": true,
		"consent_to_primary_purpose_deadline_interval": "30d"}
	for k, v := range want {
		body[k] = v
	}
	if r := s.do("POST", "/api/v1/forms/accept-submission", k, body); r.Status != 200 {
		t.Fatalf("accept: %d %s", r.Status, r.Body)
	}
	r := s.do("GET", "/api/v1/forms/submissions/odd-keys", k, nil)
	var got struct {
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || !reflect.DeepEqual(got.Payload, want) {
		t.Fatalf("payload read back %v (%v), want %v", got.Payload, err, want)
	}
}
