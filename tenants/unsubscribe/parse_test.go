package unsubscribe

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	jsonType = "application/json"
	formType = "application/x-www-form-urlencoded"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseTestdata(t *testing.T) {
	generic := Result{Events: []Event{{Email: "jane.doe@example.com", Phone: "+442079460958"}}, Generic: true}
	tests := []struct {
		provider, file, contentType string
		want                        Result
	}{
		{"brevo", "brevo_unsubscribe.json", jsonType, Result{Events: []Event{{Email: "jane.doe@example.com"}}}},
		{"brevo", "brevo_delivered.json", jsonType, Result{Ignored: 1}},
		{"brevo", "brevo_batch.json", jsonType, Result{Events: []Event{{Email: "john.roe@example.com"}}, Ignored: 3}},
		{"brevo", "brevo_transactional_unsubscribed.json", jsonType, Result{Events: []Event{{
			Email: "jane.doe@example.com", EventID: "<202404091420.47611233416@smtp-relay.mailin.fr>"}}}},
		{"mailchimp", "mailchimp_unsubscribe.form", formType, Result{Events: []Event{{
			Email: "api+unsub@example.com", Phone: "+44 20 7946 0958"}}}},
		{"mailchimp", "mailchimp_delete.form", formType, Result{Events: []Event{{Email: "john.roe@example.com"}}}},
		{"mailchimp", "mailchimp_subscribe.form", formType, Result{Ignored: 1}},
		{"mailchimp", "mailchimp_cleaned.form", formType, Result{Ignored: 1}},
		{"mailchimp", "mailchimp_unsubscribe.form", "", Result{Events: []Event{{
			Email: "api+unsub@example.com", Phone: "+44 20 7946 0958"}}}},
		{"sendgrid", "sendgrid_batch.json", jsonType, Result{Events: []Event{
			{Email: "jane.doe@example.com", EventID: "zmzJhfJgAfUSOW80yEbPyw=="},
			{Email: "john.roe@example.com", EventID: "ahSCB7xYcXFb-hEaawsPRw=="},
		}, Ignored: 4}},
		{"mailjet", "mailjet_unsub.json", jsonType, Result{Events: []Event{{
			Email: "jane.doe@example.com", EventID: "20547674933128000"}}}},
		{"mailjet", "mailjet_open.json", jsonType, Result{Ignored: 1}},
		{"mailjet", "mailjet_batch.json", jsonType, Result{Events: []Event{
			{Email: "john.roe@example.com", EventID: "19421777836302491"},
			{Email: "ann.poe@example.com", EventID: "1ab23cd4-e567-4901-a345-6789f0ab1c2f"},
		}, Ignored: 3}},
		{"postmark", "postmark_subscription_change.json", jsonType, Result{Events: []Event{{
			Email: "jane.doe@example.com", EventID: "883953f4-6105-42a2-a16a-77a8eac79483"}}}},
		{"postmark", "postmark_resubscribe.json", jsonType, Result{Ignored: 1}},
		{"postmark", "postmark_bounce.json", jsonType, Result{Ignored: 1}},
	}
	for _, p := range Providers() {
		for _, ct := range []string{jsonType, "application/json; charset=utf-8", ""} {
			tests = append(tests, struct {
				provider, file, contentType string
				want                        Result
			}{p, "generic.json", ct, generic})
		}
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.file+"/"+tt.contentType, func(t *testing.T) {
			got, err := Parse(tt.provider, tt.contentType, readTestdata(t, tt.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// TestMisroutedWebhooks checks that a provider's payload posted to another provider's path
// never revokes anything: it is either refused or recognised as nothing to do.
func TestMisroutedWebhooks(t *testing.T) {
	files := map[string][]string{
		"brevo":     {"brevo_unsubscribe.json", "brevo_delivered.json", "brevo_batch.json"},
		"sendgrid":  {"sendgrid_batch.json"},
		"mailjet":   {"mailjet_unsub.json", "mailjet_open.json", "mailjet_batch.json"},
		"postmark":  {"postmark_subscription_change.json", "postmark_bounce.json"},
		"mailchimp": {"mailchimp_unsubscribe.form"},
	}
	// The three providers sharing "event" speak one dialect; between them an unsubscribe of
	// one is read as an event of the other, which is a matter of naming, not of routing.
	sameDialect := map[string]bool{"brevo": true, "sendgrid": true, "mailjet": true}
	for owner, names := range files {
		for _, name := range names {
			body := readTestdata(t, name)
			ct := jsonType
			if strings.HasSuffix(name, ".form") {
				ct = formType
			}
			for _, p := range Providers() {
				if p == owner || (sameDialect[p] && sameDialect[owner]) {
					continue
				}
				res, err := Parse(p, ct, body)
				if err == nil && (len(res.Events) > 0 || res.Generic) {
					t.Errorf("%s posted to %s: %+v", name, p, res)
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	many := "[" + strings.Repeat(`{"event":"open","email":"a@example.com"},`, maxEvents) +
		`{"event":"open","email":"a@example.com"}]`
	tests := []struct {
		name, provider, contentType, body string
		want                              error
	}{
		{"unknown provider", "mandrill", jsonType, `{"email":"a@example.com"}`, ErrUnknownProvider},
		{"provider case matters", "Brevo", jsonType, `{"email":"a@example.com"}`, ErrUnknownProvider},
		{"empty body", "brevo", jsonType, ``, ErrMalformed},
		{"blank body", "mailchimp", "", " \n\t", ErrMalformed},
		{"empty body form", "mailchimp", formType, ``, ErrMalformed},
		{"null", "brevo", jsonType, `null`, ErrMalformed},
		{"number", "postmark", jsonType, `42`, ErrMalformed},
		{"string", "mailjet", jsonType, `"a@example.com"`, ErrMalformed},
		{"invalid JSON", "sendgrid", jsonType, `{"email":`, ErrMalformed},
		{"trailing data", "brevo", jsonType, `{"email":"a@example.com"} {}`, ErrMalformed},
		{"array trailing data", "sendgrid", jsonType, `[] []`, ErrMalformed},
		{"array unterminated", "sendgrid", jsonType, `[{"event":"open"}`, ErrMalformed},
		{"generic empty object", "brevo", jsonType, `{}`, ErrNoIdentifier},
		{"generic blanks", "postmark", "", `{"email":"  ","phone":null}`, ErrNoIdentifier},
		{"generic number", "mailjet", jsonType, `{"email":5}`, ErrMalformed},
		{"generic phone object", "sendgrid", jsonType, `{"email":"a@example.com","phone":{}}`, ErrMalformed},
		{"generic array", "brevo", jsonType, `[{"email":"a@example.com"}]`, ErrMalformed},
		{"form to JSON provider", "brevo", formType, `email=a%40example.com`, ErrMalformed},
		{"form body without type", "mailchimp", formType, `email=a%40example.com`, ErrMalformed},
		{"form body bad escape", "mailchimp", formType, `type=unsubscribe&data%5Bemail%5D=%zz`, ErrMalformed},
		{"form unsubscribe without email", "mailchimp", formType, `type=unsubscribe&data%5Baction%5D=unsub`, ErrMalformed},
		{"non-JSON without content type", "postmark", "", `type=unsubscribe`, ErrMalformed},
		{"unsupported content type", "brevo", "text/plain", `{"email":"a@example.com"}`, ErrMalformed},
		{"unreadable content type", "brevo", "application/json; charset", `{"email":"a@example.com"}`, ErrMalformed},
		{"event not a string", "brevo", jsonType, `{"event":1,"email":"a@example.com"}`, ErrMalformed},
		{"event empty", "mailjet", jsonType, `{"event":"","email":"a@example.com"}`, ErrMalformed},
		{"unsubscribe email not a string", "sendgrid", jsonType, `[{"event":"unsubscribe","email":[]}]`, ErrMalformed},
		{"unsubscribe without email", "brevo", jsonType, `{"event":"unsubscribe"}`, ErrMalformed},
		{"batch element not object", "sendgrid", jsonType, `[{"event":"open"},1]`, ErrMalformed},
		{"batch element without event", "mailjet", jsonType, `[{"email":"a@example.com"}]`, ErrMalformed},
		{"other dialect on postmark", "postmark", jsonType, `{"event":"delivered","email":"a@example.com"}`, ErrMalformed},
		{"postmark without SuppressSending", "postmark", jsonType, `{"RecordType":"SubscriptionChange","Recipient":"a@example.com"}`, ErrMalformed},
		{"postmark SuppressSending string", "postmark", jsonType, `{"RecordType":"SubscriptionChange","SuppressSending":"true","Recipient":"a@example.com"}`, ErrMalformed},
		{"mailchimp JSON data not object", "mailchimp", jsonType, `{"type":"unsubscribe","data":"x"}`, ErrMalformed},
		{"too many events", "sendgrid", jsonType, many, ErrTooManyEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Parse(tt.provider, tt.contentType, []byte(tt.body))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse error = %v, want %v", err, tt.want)
			}
			if !reflect.DeepEqual(res, Result{}) {
				t.Errorf("Parse returned %+v with its error", res)
			}
		})
	}
}

func TestParseEdges(t *testing.T) {
	atLimit := "[" + strings.Repeat(`{"event":"open"},`, maxEvents-1) + `{"event":"open"}]`
	tests := []struct {
		name, provider, contentType, body string
		want                              Result
	}{
		{"generic trimmed", "brevo", jsonType, "\ufeff" + `{"email":"  a@example.com ","phone":""}`,
			Result{Events: []Event{{Email: "a@example.com"}}, Generic: true}},
		{"generic phone only", "mailchimp", jsonType, `{"phone":"+15551234567","extra":true}`,
			Result{Events: []Event{{Phone: "+15551234567"}}, Generic: true}},
		{"vendor JSON media type", "postmark", "application/vnd.api+json", `{"email":"a@example.com"}`,
			Result{Events: []Event{{Email: "a@example.com"}}, Generic: true}},
		{"empty batch", "sendgrid", jsonType, `[]`, Result{}},
		{"batch at the limit", "sendgrid", jsonType, atLimit, Result{Ignored: maxEvents}},
		{"sendgrid lone event", "sendgrid", jsonType, `{"event":"unsubscribe","email":"a@example.com","sg_event_id":"x"}`,
			Result{Events: []Event{{Email: "a@example.com", EventID: "x"}}}},
		{"same id, other recipient kept", "postmark", jsonType,
			`[{"RecordType":"SubscriptionChange","MessageID":"m","SuppressSending":true,"Recipient":"a@example.com"},
			  {"RecordType":"SubscriptionChange","MessageID":"m","SuppressSending":true,"Recipient":"b@example.com"},
			  {"RecordType":"SubscriptionChange","MessageID":"m","SuppressSending":true,"Recipient":"a@example.com"}]`,
			Result{Events: []Event{{Email: "a@example.com", EventID: "m"}, {Email: "b@example.com", EventID: "m"}}}},
		{"events without id are not merged", "brevo", jsonType,
			`[{"event":"unsubscribe","email":"a@example.com"},{"event":"unsubscribe","email":"a@example.com"}]`,
			Result{Events: []Event{{Email: "a@example.com"}, {Email: "a@example.com"}}}},
		{"mailchimp unencoded brackets", "mailchimp", formType,
			"type=unsubscribe&data[action]=unsub&data[email]=a%40example.com&data[merges][PHONE]=\n",
			Result{Events: []Event{{Email: "a@example.com"}}}},
		{"mailchimp other action", "mailchimp", formType, "type=unsubscribe&data[action]=archive&data[email]=a%40example.com",
			Result{Ignored: 1}},
		{"mailchimp JSON", "mailchimp", jsonType,
			`{"type":"unsubscribe","fired_at":"2024-04-09 21:40:57","data":{"action":"delete","email":"a@example.com","merges":{"PHONE":"+15551234567"}}}`,
			Result{Events: []Event{{Email: "a@example.com", Phone: "+15551234567"}}}},
		{"mailjet string MessageID", "mailjet", jsonType, `{"event":"unsub","email":"a@example.com","MessageID":"123"}`,
			Result{Events: []Event{{Email: "a@example.com", EventID: "123"}}}},
		{"postmark manual suppression", "postmark", jsonType,
			`{"RecordType":"SubscriptionChange","MessageID":null,"SuppressSending":true,"Recipient":"a@example.com","Origin":"Customer"}`,
			Result{Events: []Event{{Email: "a@example.com"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.provider, tt.contentType, []byte(tt.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestProviders(t *testing.T) {
	want := []string{"brevo", "mailchimp", "sendgrid", "mailjet", "postmark"}
	got := Providers()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Providers() = %v", got)
	}
	got[0] = "changed"
	if Providers()[0] != "brevo" {
		t.Error("Providers() shares its slice")
	}
	for _, p := range want {
		if adapterFor(p) == nil {
			t.Errorf("no adapter for %q", p)
		}
	}
	for _, p := range []string{"", "campaign", "BREVO", "sendinblue"} {
		if adapterFor(p) != nil {
			t.Errorf("an adapter for %q", p)
		}
	}
}
