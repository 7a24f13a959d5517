package consent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// decode turns a JSON object into the map Validate receives from a handler.
func decode(t testing.TB, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("bad test body %s: %v", body, err)
	}
	return m
}

// ok is a minimal valid body; cases add to it with with().
const ok = `"form_id":"f1","consent_to_general_contact_email":true,"email":"a@example.org"`

func with(fields string) string {
	if fields == "" {
		return "{" + ok + "}"
	}
	return "{" + ok + "," + fields + "}"
}

func TestValidateCodes(t *testing.T) {
	long := strings.Repeat("é", 1001)
	max := strings.Repeat("é", 1000)
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"minimal valid", with(""), nil},
		{"primary only", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d"}`, nil},
		{"phone only", `{"form_id":"f1","consent_to_general_contact_phone":true,"phone_number":"+49 151 1234 5678"}`, nil},

		// form_id
		{"form_id absent", `{"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_missing"}},
		{"form_id null", `{"form_id":null,"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_missing"}},
		{"form_id empty", `{"form_id":"","consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_missing"}},
		{"form_id blank", `{"form_id":"  ","consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_missing"}},
		{"form_id number", `{"form_id":12,"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_unknown"}},
		{"form_id bool", `{"form_id":true,"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_unknown"}},
		{"form_id array", `{"form_id":["f1"],"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_unknown"}},
		{"form_id object", `{"form_id":{"id":"f1"},"consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_unknown"}},
		{"form_id 129 chars", `{"form_id":"` + strings.Repeat("f", 129) + `","consent_to_general_contact_email":true,"email":"a@example.org"}`, []string{"form_id_unknown"}},
		{"form_id 128 chars", `{"form_id":"` + strings.Repeat("f", 128) + `","consent_to_general_contact_email":true,"email":"a@example.org"}`, nil},

		// submission_id
		{"submission_id valid", with(`"submission_id":"Ab9._:-x"`), nil},
		{"submission_id null", with(`"submission_id":null`), nil},
		{"submission_id 128", with(`"submission_id":"` + strings.Repeat("a", 128) + `"`), nil},
		{"submission_id 129", with(`"submission_id":"` + strings.Repeat("a", 129) + `"`), []string{"submission_id_invalid"}},
		{"submission_id empty", with(`"submission_id":""`), []string{"submission_id_invalid"}},
		{"submission_id space", with(`"submission_id":"a b"`), []string{"submission_id_invalid"}},
		{"submission_id slash", with(`"submission_id":"a/b"`), []string{"submission_id_invalid"}},
		{"submission_id unicode", with(`"submission_id":"été"`), []string{"submission_id_invalid"}},
		{"submission_id number", with(`"submission_id":42`), []string{"submission_id_invalid"}},
		{"submission_id object", with(`"submission_id":{}`), []string{"submission_id_invalid"}},

		// consent flags
		{"no consent", `{"form_id":"f1"}`, []string{"consent_missing"}},
		{"all consents false", `{"form_id":"f1","consent_to_primary_purpose":false,"consent_to_general_contact_email":false,"consent_to_general_contact_phone":false}`, []string{"consent_missing"}},
		{"all consents null", `{"form_id":"f1","consent_to_primary_purpose":null,"consent_to_general_contact_email":null,"consent_to_general_contact_phone":null}`, []string{"consent_missing"}},
		{"primary string true", with(`"consent_to_primary_purpose":"true"`), []string{"consent_to_primary_purpose_invalid"}},
		{"primary number", with(`"consent_to_primary_purpose":1`), []string{"consent_to_primary_purpose_invalid"}},
		{"primary invalid alone", `{"form_id":"f1","consent_to_primary_purpose":"yes"}`, []string{"consent_missing", "consent_to_primary_purpose_invalid"}},
		{"primary invalid with custom", with(`"consent_to_primary_purpose":"yes","petition":"x"`), []string{"consent_to_primary_purpose_invalid"}},
		{"email flag string", `{"form_id":"f1","consent_to_general_contact_email":"true","email":"a@example.org"}`, []string{"consent_missing", "consent_to_general_contact_email_invalid"}},
		{"phone flag number", with(`"consent_to_general_contact_phone":1`), []string{"consent_to_general_contact_phone_invalid"}},
		{"phone flag array", with(`"consent_to_general_contact_phone":[true]`), []string{"consent_to_general_contact_phone_invalid"}},

		// custom fields and primary purpose
		{"custom without primary", with(`"petition":"save the bees"`), []string{"consent_to_primary_purpose_missing"}},
		{"custom with primary null", with(`"petition":"x","consent_to_primary_purpose":null`), []string{"consent_to_primary_purpose_missing"}},
		{"custom with primary false", with(`"petition":"x","consent_to_primary_purpose":false`), []string{"consent_to_primary_purpose_declined"}},
		{"custom with primary true", with(`"petition":"x","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":"2027-01-31"`), nil},
		{"custom null value", with(`"petition":null`), []string{"consent_to_primary_purpose_missing"}},
		{"primary false no custom", with(`"consent_to_primary_purpose":false`), nil},
		{"alternate consents array", with(`"consents":[{"type":"general_contact","granted":true,"deadline":"30d"}]`), []string{"consent_to_primary_purpose_missing"}},
		{"alternate address object", with(`"address":{"street":"Main St","city":"X","state":"Y","zip":"1","country":"DE"}`), []string{"consent_to_primary_purpose_missing"}},
		{"alternate flat phone", with(`"phone":"+4915112345678"`), []string{"consent_to_primary_purpose_missing"}},
		{"alternate flat zip", with(`"zip":"12345"`), []string{"consent_to_primary_purpose_missing"}},

		// primary deadline
		{"primary no deadline", `{"form_id":"f1","consent_to_primary_purpose":true}`, []string{"consent_to_primary_purpose_deadline_missing"}},
		{"primary null deadlines", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":null,"consent_to_primary_purpose_deadline_interval":null}`, []string{"consent_to_primary_purpose_deadline_missing"}},
		{"primary deadline date", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":"2027-01-31T10:00:00+02:00"}`, nil},
		{"primary deadline past", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":"2020-01-31"}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"primary deadline garbage", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"forever"}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"primary deadline empty", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":""}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"primary deadline number", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":30}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"primary deadline zero", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"0d"}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"primary both deadlines bad", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_date":"x","consent_to_primary_purpose_deadline_interval":"y"}`, []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"deadline for declined primary, bad", with(`"consent_to_primary_purpose":false,"consent_to_primary_purpose_deadline_interval":"soon"`), []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"deadline for absent primary, bad", with(`"consent_to_primary_purpose_deadline_date":"2020-01-01"`), []string{"consent_to_primary_purpose_deadline_invalid"}},
		{"deadline for absent primary, good", with(`"consent_to_primary_purpose_deadline_interval":"30d"`), nil},

		// general contact deadline
		{"general deadline good", with(`"consent_to_general_contact_deadline_interval":"2y"`), nil},
		{"general deadline bad", with(`"consent_to_general_contact_deadline_interval":"2 eons"`), []string{"consent_to_general_contact_deadline_invalid"}},
		{"general deadline past", with(`"consent_to_general_contact_deadline_date":"2026-02-28"`), []string{"consent_to_general_contact_deadline_invalid"}},
		{"general deadline object", with(`"consent_to_general_contact_deadline_date":{}`), []string{"consent_to_general_contact_deadline_invalid"}},
		{"general deadline without consent", `{"form_id":"f1","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1d","consent_to_general_contact_deadline_interval":"x"}`, []string{"consent_to_general_contact_deadline_invalid"}},

		// email
		{"email consent, no email", `{"form_id":"f1","consent_to_general_contact_email":true}`, []string{"consent_to_general_contact_email_missing"}},
		{"email consent, null email", `{"form_id":"f1","consent_to_general_contact_email":true,"email":null}`, []string{"consent_to_general_contact_email_missing"}},
		{"email consent, empty email", `{"form_id":"f1","consent_to_general_contact_email":true,"email":""}`, []string{"consent_to_general_contact_email_missing"}},
		{"email consent, bad email", `{"form_id":"f1","consent_to_general_contact_email":true,"email":"not-an-email"}`, []string{"consent_to_general_contact_email_invalid"}},
		{"email consent, display name", `{"form_id":"f1","consent_to_general_contact_email":true,"email":"Jane <a@example.org>"}`, []string{"consent_to_general_contact_email_invalid"}},
		{"email number", with(`"email":5`), []string{"consent_to_general_contact_email_invalid"}},
		{"bad email without email consent", `{"form_id":"f1","consent_to_general_contact_phone":true,"phone_number":"+4915112345678","email":"x@y"}`, []string{"consent_to_general_contact_email_invalid"}},
		{"email array", `{"form_id":"f1","consent_to_general_contact_email":true,"email":["a@example.org"]}`, []string{"consent_to_general_contact_email_invalid"}},

		// phone
		{"phone consent, no phone", `{"form_id":"f1","consent_to_general_contact_phone":true}`, []string{"consent_to_general_contact_phone_missing"}},
		{"phone consent, blank phone", `{"form_id":"f1","consent_to_general_contact_phone":true,"phone_number":" "}`, []string{"consent_to_general_contact_phone_missing"}},
		{"phone consent, national phone", `{"form_id":"f1","consent_to_general_contact_phone":true,"phone_number":"0151 1234567"}`, []string{"consent_to_general_contact_phone_invalid"}},
		{"phone number type", with(`"phone_number":4915112345678`), []string{"consent_to_general_contact_phone_invalid"}},
		{"bad phone without phone consent", with(`"phone_number":"+0123"`), []string{"consent_to_general_contact_phone_invalid"}},
		{"flat phone key is custom, not phone_number", `{"form_id":"f1","consent_to_general_contact_phone":true,"phone":"+4915112345678"}`, []string{"consent_to_primary_purpose_missing", "consent_to_general_contact_phone_missing"}},

		// the other text fields
		{"unicode names", with(`"first_name":"Zoë","last_name":"Ørsted-Łukasiewicz 李","name_prefix":"Dr.","address_city":"Zürich"`), nil},
		{"name 1000 chars", with(`"first_name":"` + max + `"`), nil},
		{"name 1001 chars", with(`"first_name":"` + long + `"`), []string{"first_name_invalid"}},
		{"last_name number", with(`"last_name":7`), []string{"last_name_invalid"}},
		{"name_prefix bool", with(`"name_prefix":false`), []string{"name_prefix_invalid"}},
		{"street array", with(`"address_street":["Main St"]`), []string{"address_street_invalid"}},
		{"house number number", with(`"address_house_number":12`), []string{"address_house_number_invalid"}},
		{"city object", with(`"address_city":{"name":"X"}`), []string{"address_city_invalid"}},
		{"postcode number", with(`"address_postcode":12345`), []string{"address_postcode_invalid"}},
		{"source long", with(`"consent_source":"` + long + `"`), []string{"consent_source_invalid"}},
		{"ip bad", with(`"consent_ip_address":"999.1.1.1"`), []string{"consent_ip_address_invalid"}},
		{"ip v6", with(`"consent_ip_address":"2001:db8::1"`), nil},
		{"timestamp bad", with(`"consent_timestamp":"yesterday"`), []string{"consent_timestamp_invalid"}},
		{"timestamp no offset", with(`"consent_timestamp":"2026-03-01T10:00:00"`), []string{"consent_timestamp_invalid"}},
		{"timestamp number", with(`"consent_timestamp":1700000000`), []string{"consent_timestamp_invalid"}},
		{"timestamp good", with(`"consent_timestamp":"2026-03-01T10:00:00.123+01:00"`), nil},
		{"text version id", with(`"consent_text_version":"ct_2345abc"`), nil},
		{"text version null", with(`"consent_text_version":null`), nil},
		{"text version number", with(`"consent_text_version":7`), []string{"consent_text_version_unknown"}},
		{"text version empty", with(`"consent_text_version":""`), []string{"consent_text_version_unknown"}},
		{"text version not an id", with(`"consent_text_version":"a b/c"`), []string{"consent_text_version_unknown"}},
		{"text nulls", with(`"first_name":null,"last_name":null,"name_prefix":null,"address_street":null,"address_house_number":null,"address_city":null,"address_postcode":null,"consent_source":null,"consent_ip_address":null,"consent_timestamp":null`), nil},
		{"text empties", with(`"first_name":"","last_name":"","name_prefix":"","address_street":"","address_house_number":"","address_city":"","address_postcode":"","consent_source":"","consent_ip_address":"","consent_timestamp":""`), nil},

		// combinations
		{"empty body", `{}`, []string{"form_id_missing", "consent_missing"}},
		{"everything wrong", `{
			"form_id": 5, "submission_id": "a b",
			"consent_to_primary_purpose": "x",
			"consent_to_primary_purpose_deadline_date": "never",
			"consent_to_general_contact_email": 1, "consent_to_general_contact_phone": "y",
			"consent_to_general_contact_deadline_interval": 5,
			"email": "nope", "phone_number": "nope",
			"first_name": 1, "last_name": 2, "name_prefix": 3,
			"address_street": 4, "address_house_number": 5, "address_city": 6, "address_postcode": 7,
			"consent_source": 8, "consent_ip_address": "host", "consent_timestamp": "then",
			"custom": 1
		}`, []string{
			"form_id_unknown", "submission_id_invalid", "consent_missing",
			"consent_to_primary_purpose_invalid", "consent_to_primary_purpose_deadline_invalid",
			"consent_to_general_contact_phone_invalid", "consent_to_general_contact_email_invalid",
			"consent_to_general_contact_deadline_invalid",
			"first_name_invalid", "last_name_invalid", "name_prefix_invalid",
			"address_street_invalid", "address_house_number_invalid", "address_city_invalid",
			"address_postcode_invalid", "consent_source_invalid", "consent_ip_address_invalid",
			"consent_timestamp_invalid",
		}},
		{"missing family", `{"consent_to_primary_purpose":true,"consent_to_general_contact_email":true,"consent_to_general_contact_phone":true,"x":1}`, []string{
			"form_id_missing", "consent_to_primary_purpose_deadline_missing",
			"consent_to_general_contact_phone_missing", "consent_to_general_contact_email_missing",
		}},
		{"declined with custom, nothing else", `{"form_id":"f1","consent_to_primary_purpose":false,"x":1}`, []string{
			"consent_missing", "consent_to_primary_purpose_declined",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got := Validate(decode(t, c.body), nil, testNow, FormRules)
			if !slices.Equal(got, c.want) {
				t.Errorf("codes = %q\nwant    %q", got, c.want)
			}
		})
	}
}

func TestValidateNormalises(t *testing.T) {
	body := decode(t, `{
		"form_id": " f1 ", "submission_id": "s-1",
		"email": "  Jane.Doe@Example.ORG ", "phone_number": "+44 (20) 7946-0958",
		"first_name": " Zoë ", "last_name": "Doe", "name_prefix": "",
		"address_street": "Main St", "address_house_number": "12a",
		"address_city": " Zürich", "address_postcode": null,
		"consent_to_general_contact_email": true, "consent_to_general_contact_phone": false
	}`)
	sub, codes := Validate(body, nil, testNow, FormRules)
	if codes != nil {
		t.Fatalf("codes = %v", codes)
	}
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	checks := []struct{ name, got, want string }{
		{"FormID", sub.FormID, "f1"},
		{"SubmissionID", sub.SubmissionID, "s-1"},
		{"Email", str(sub.Contact.Email), "Jane.Doe@Example.ORG"},
		{"EmailKey", sub.EmailKey, "jane.doe@example.org"},
		{"PhoneNumber", str(sub.Contact.PhoneNumber), "+442079460958"},
		{"PhoneKey", sub.PhoneKey, "+442079460958"},
		{"FirstName", str(sub.Contact.FirstName), "Zoë"},
		{"LastName", str(sub.Contact.LastName), "Doe"},
		{"NamePrefix", str(sub.Contact.NamePrefix), "<nil>"},
		{"Street", str(sub.Address.Street), "Main St"},
		{"HouseNumber", str(sub.Address.HouseNumber), "12a"},
		{"City", str(sub.Address.City), "Zürich"},
		{"Postcode", str(sub.Address.Postcode), "<nil>"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if sub.Payload != nil || sub.Extra != nil {
		t.Errorf("Payload, Extra = %v, %v; want nil", sub.Payload, sub.Extra)
	}
	email := sub.Consents.GeneralContactEmail
	if email.Status != tenants.StatusGranted || email.GrantedAt == nil || !email.GrantedAt.Equal(testNow) || email.Deadline != nil {
		t.Errorf("e-mail consent = %+v", email)
	}
	for name, c := range map[string]tenants.Consent{"primary": sub.Consents.PrimaryPurpose, "phone": sub.Consents.GeneralContactPhone} {
		if c != (tenants.Consent{Status: tenants.StatusNotGranted}) {
			t.Errorf("%s consent = %+v, want bare not_granted", name, c)
		}
	}
}

func TestValidateProvenance(t *testing.T) {
	body := decode(t, with(`"consent_to_general_contact_phone":false,"consent_to_primary_purpose":true,
		"consent_to_primary_purpose_deadline_interval":"30d",
		"consent_source":"web:petition-page","consent_ip_address":" 203.0.113.7 ","consent_timestamp":"2026-03-01T11:59:00Z"`))
	sub, codes := Validate(body, nil, testNow, FormRules)
	if codes != nil {
		t.Fatalf("codes = %v", codes)
	}
	for name, c := range map[string]tenants.Consent{"primary": sub.Consents.PrimaryPurpose, "email": sub.Consents.GeneralContactEmail} {
		if c.Source == nil || *c.Source != "web:petition-page" || c.IPAddress == nil || *c.IPAddress != "203.0.113.7" ||
			c.Timestamp == nil || *c.Timestamp != "2026-03-01T11:59:00Z" {
			t.Errorf("%s consent proof = %v %v %v", name, c.Source, c.IPAddress, c.Timestamp)
		}
	}
	if p := sub.Consents.GeneralContactPhone; p.Source != nil || p.IPAddress != nil || p.Timestamp != nil || p.GrantedAt != nil {
		t.Errorf("proof copied onto a consent not granted: %+v", p)
	}
	// Consents never share pointers: changing one leaves the others alone.
	*sub.Consents.PrimaryPurpose.Source = "changed"
	*sub.Consents.PrimaryPurpose.GrantedAt = time.Time{}
	if *sub.Consents.GeneralContactEmail.Source != "web:petition-page" || sub.Consents.GeneralContactEmail.GrantedAt.IsZero() {
		t.Error("consents share proof or time pointers")
	}
}

func TestValidateDeadlines(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		name                  string
		body                  string
		primary, email, phone *time.Time
	}{
		{"interval", `{"form_id":"f","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"6M"}`,
			ptr(at("2026-08-28T12:00:00Z")), nil, nil},
		{"date earlier than interval", `{"form_id":"f","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1y","consent_to_primary_purpose_deadline_date":"2026-06-30"}`,
			ptr(at("2026-06-30T23:59:59Z")), nil, nil},
		{"interval earlier than date", `{"form_id":"f","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d","consent_to_primary_purpose_deadline_date":"2030-06-30T00:00:00Z"}`,
			ptr(at("2026-03-31T12:00:00Z")), nil, nil},
		{"general applies to both channels", `{"form_id":"f","consent_to_general_contact_email":true,"email":"a@example.org","consent_to_general_contact_phone":true,"phone_number":"+4915112345678","consent_to_general_contact_deadline_interval":"2y"}`,
			nil, ptr(at("2028-03-01T00:00:00Z")), ptr(at("2028-03-01T00:00:00Z"))},
		{"general, email only granted", `{"form_id":"f","consent_to_general_contact_email":true,"email":"a@example.org","consent_to_general_contact_deadline_date":"2027-01-01"}`,
			nil, ptr(at("2027-01-01T23:59:59Z")), nil},
		{"deadline of declined primary ignored", `{"form_id":"f","consent_to_general_contact_email":true,"email":"a@example.org","consent_to_primary_purpose":false,"consent_to_primary_purpose_deadline_interval":"30d"}`,
			nil, nil, nil},
		{"deadline of absent primary ignored", `{"form_id":"f","consent_to_general_contact_email":true,"email":"a@example.org","consent_to_primary_purpose_deadline_date":"2027-01-01"}`,
			nil, nil, nil},
		{"general deadline with no general consent ignored", `{"form_id":"f","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1d","consent_to_general_contact_deadline_interval":"30d"}`,
			ptr(at("2026-03-02T12:00:00Z")), nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub, codes := Validate(decode(t, c.body), nil, testNow, FormRules)
			if codes != nil {
				t.Fatalf("codes = %v", codes)
			}
			got := []*time.Time{sub.Consents.PrimaryPurpose.Deadline, sub.Consents.GeneralContactEmail.Deadline, sub.Consents.GeneralContactPhone.Deadline}
			want := []*time.Time{c.primary, c.email, c.phone}
			for i := range got {
				if (got[i] == nil) != (want[i] == nil) || got[i] != nil && !got[i].Equal(*want[i]) {
					t.Errorf("deadline %d = %v, want %v", i, got[i], want[i])
				}
			}
			if sub.Consents.PrimaryPurpose.Status == tenants.StatusNotGranted && sub.Consents.PrimaryPurpose.Deadline != nil {
				t.Error("deadline on a consent not granted")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
