package main

import (
	"strings"
	"testing"
)

const (
	digitisationPath = "/api/v1/digitisation/submissions"
	canvassingPath   = "/api/v1/canvassing/submissions"
	callsPath        = "/api/v1/phone-call-tasks"
)

// TestRecordIngestion covers the three ingestion endpoints of docs/API.md §6: 201 {"id"},
// 400 single-error bodies, the records:write scope.
func TestRecordIngestion(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	s.cli("form", "create", "--tenant", tn, "--form-id", "closed-form", "--closed")
	k := s.key(tn, "records:write")
	subOnly := s.key(tn, "submissions:write")
	all := s.key(tn, "all")

	created := func(name, path string, body any) apiCase {
		return apiCase{name: name, path: path, key: k, body: body, status: 201, check: func(t *testing.T, r response) {
			m := r.JSON(t)
			if id, _ := m["id"].(string); id == "" || len(m) != 1 {
				t.Errorf("body %s, want {\"id\":...}", r.Body)
			}
		}}
	}
	// single checks the single-error body: exactly error, message, code, details.
	single := func(name, path string, body any, code, field string, errs ...string) apiCase {
		return apiCase{name: name, path: path, key: k, body: body, status: 400, kind: "ValidationError", code: code, field: field,
			check: func(t *testing.T, r response) {
				m := r.JSON(t)
				if ks := keysOf(m, ""); !equalStrings(ks, []string{"code", "details", "error", "message"}) {
					t.Errorf("keys %v of %s", ks, r.Body)
				}
				if errs != nil {
					got, _ := at(m, "details.errors").([]any)
					var list []string
					for _, g := range got {
						list = append(list, g.(string))
					}
					if !sameSet(list, errs) {
						t.Errorf("details.errors %v, want %v", list, errs)
					}
				}
			}}
	}
	dig := map[string]any{"form_id": "petition", "consent_to_general_contact_email": true, "email": "paper@example.org",
		"document_ref": "DOC-2024-0042", "digitised_by": "clerk-7"}
	canv := map[string]any{"canvasser_id": "cv-9", "visited_at": "2024-04-09T17:30:00Z", "outcome": "supportive",
		"notes": "Asked about the petition.", "first_name": "Door", "address_street": "Elm Road", "address_house_number": "12"}
	call1 := map[string]any{"phone_number": "+4915112345678", "first_name": "Caller", "campaign_id": "camp-1", "caller_id": "c-3",
		"status": "completed", "outcome": "answered", "notes": "Call back later.", "scheduled_at": "2024-04-09T10:00:00Z",
		"called_at": "2024-04-09T10:05:00+02:00", "team": "north"}

	runCases(t, s, []apiCase{
		// Digitisation: the accept-submission rules, single-error bodies.
		created("digitisation", digitisationPath, dig),
		created("digitisation with custom fields and primary consent", digitisationPath, with(dig, "page", 3,
			"consent_to_primary_purpose", true, "consent_to_primary_purpose_deadline_date", "2099-01-01")),
		created("digitisation without its own fields", digitisationPath, with(dig, "document_ref", absent, "digitised_by", absent)),
		{name: "digitisation keeps a given submission id", path: digitisationPath, key: k, body: with(dig, "submission_id", "paper-1"), status: 201,
			contains: []string{`{"id":"paper-1"}`}},
		{name: "digitisation repeat answers the same id", path: digitisationPath, key: k, body: with(dig, "submission_id", "paper-1", "email", "x"), status: 201,
			contains: []string{`{"id":"paper-1"}`}},
		single("digitisation empty", digitisationPath, map[string]any{}, "form_id_missing", "form_id", cFormMissing, cConsentMissing),
		single("digitisation closed form", digitisationPath, with(dig, "form_id", "closed-form"), "form_id_unknown", "form_id", cFormUnknown),
		single("digitisation unknown form", digitisationPath, with(dig, "form_id", "nope"), "form_id_unknown", "form_id", cFormUnknown),
		single("digitisation no consent", digitisationPath, with(dig, "consent_to_general_contact_email", false), cConsentMissing, "consent", cConsentMissing),
		single("digitisation custom field without primary", digitisationPath, with(dig, "page", 3), cPrimaryMissing, "consent_to_primary_purpose", cPrimaryMissing),
		single("digitisation bad e-mail", digitisationPath, with(dig, "email", "nope"), cEmailInvalid, "consent_to_general_contact_email", cEmailInvalid),
		single("digitisation several failures", digitisationPath, with(dig, "email", absent, "submission_id", "bad id",
			"consent_to_general_contact_phone", true), cSubIDInvalid, "submission_id", cSubIDInvalid, cPhoneMissing, cEmailMissing),
		single("digitisation document_ref number", digitisationPath, with(dig, "document_ref", 42), "document_ref_invalid", "document_ref"),
		single("digitisation digitised_by too long", digitisationPath, with(dig, "digitised_by", strings.Repeat("x", 1001)), "digitised_by_invalid", "digitised_by"),
		{name: "digitisation invalid json", path: digitisationPath, key: k, body: "{", status: 400, kind: "ValidationError", code: "invalid_json"},

		// Canvassing: consents optional, checked when given.
		created("canvassing", canvassingPath, canv),
		created("canvassing empty", canvassingPath, map[string]any{}),
		created("canvassing with consents and custom fields", canvassingPath, with(canv, "email", "door@example.org",
			"consent_to_general_contact_email", true, "leaflet", "B", "phone_number", "+44 20 7946 0001")),
		created("canvassing with a form", canvassingPath, with(canv, "form_id", "petition")),
		single("canvassing unknown form", canvassingPath, with(canv, "form_id", "nope"), "form_id_unknown", "form_id"),
		single("canvassing closed form", canvassingPath, with(canv, "form_id", "closed-form"), "form_id_unknown", "form_id"),
		single("canvassing unknown form and a missing e-mail", canvassingPath, with(canv, "form_id", "nope", "consent_to_general_contact_email", true),
			"form_id_unknown", "form_id", "form_id_unknown", cEmailMissing),
		single("canvassing e-mail consent without e-mail", canvassingPath, with(canv, "consent_to_general_contact_email", true), cEmailMissing, "consent_to_general_contact_email"),
		single("canvassing bad phone", canvassingPath, with(canv, "consent_to_general_contact_phone", true, "phone_number", "0151"), cPhoneInvalid, "consent_to_general_contact_phone"),
		single("canvassing primary without deadline", canvassingPath, with(canv, "consent_to_primary_purpose", true), cPrimaryDLMissing, "consent_to_primary_purpose_deadline"),
		single("canvassing visited_at not a time", canvassingPath, with(canv, "visited_at", "yesterday"), "visited_at_invalid", "visited_at"),
		single("canvassing visited_at number", canvassingPath, with(canv, "visited_at", 1712683800), "visited_at_invalid", "visited_at"),
		single("canvassing outcome object", canvassingPath, with(canv, "outcome", map[string]any{}), "outcome_invalid", "outcome"),
		single("canvassing canvasser_id number", canvassingPath, with(canv, "canvasser_id", 9), "canvasser_id_invalid", "canvasser_id"),
		single("canvassing notes too long", canvassingPath, with(canv, "notes", strings.Repeat("n", 10001)), "notes_invalid", "notes"),
		{name: "canvassing array body", path: canvassingPath, key: k, body: "[]", status: 400, kind: "ValidationError", code: "invalid_json"},

		// Phone call tasks: phone_number required.
		created("phone call task", callsPath, call1),
		created("phone call task minimal", callsPath, map[string]any{"phone_number": "+44 (20) 7946-0958"}),
		single("phone call task without phone", callsPath, with(call1, "phone_number", absent), "phone_number_missing", "phone_number"),
		single("phone call task null phone", callsPath, with(call1, "phone_number", nil), "phone_number_missing", "phone_number"),
		single("phone call task empty phone", callsPath, with(call1, "phone_number", ""), "phone_number_missing", "phone_number"),
		single("phone call task national phone", callsPath, with(call1, "phone_number", "015112345678"), "phone_number_invalid", "phone_number"),
		single("phone call task phone number type", callsPath, with(call1, "phone_number", 4915112345678), "phone_number_invalid", "phone_number"),
		single("phone call task phone too short", callsPath, with(call1, "phone_number", "+123"), "phone_number_invalid", "phone_number"),
		single("phone call task bad e-mail", callsPath, with(call1, "email", "nope"), "email_invalid", "email"),
		single("phone call task first_name number", callsPath, with(call1, "first_name", 1), "first_name_invalid", "first_name"),
		single("phone call task status array", callsPath, with(call1, "status", []any{}), "status_invalid", "status"),
		single("phone call task scheduled_at not a time", callsPath, with(call1, "scheduled_at", "tomorrow"), "scheduled_at_invalid", "scheduled_at"),
		single("phone call task called_at number", callsPath, with(call1, "called_at", 5), "called_at_invalid", "called_at"),
		{name: "phone call task invalid json", path: callsPath, key: k, body: "nope", status: 400, kind: "ValidationError", code: "invalid_json"},

		// Scope: records:write, and only it (or all).
		{name: "digitisation with submissions:write", path: digitisationPath, key: subOnly, body: dig, status: 403, kind: "Forbidden"},
		{name: "canvassing with submissions:write", path: canvassingPath, key: subOnly, body: canv, status: 403, kind: "Forbidden"},
		{name: "phone call task with submissions:write", path: callsPath, key: subOnly, body: call1, status: 403, kind: "Forbidden"},
		{name: "accept-submission with records:write", path: acceptPath, key: k, body: validEmailSub, status: 403, kind: "Forbidden"},
		{name: "digitisation without key", path: digitisationPath, body: dig, status: 401, kind: "Unauthorized"},
		{name: "phone call task without key", path: callsPath, body: call1, status: 401, kind: "Unauthorized"},
		created("digitisation with all", digitisationPath, dig),
		{name: "phone call task with all", path: callsPath, key: all, body: call1, status: 201},
	})
}
