package unsubscribe

import (
	"reflect"
	"testing"
)

func TestParseSMSTestdata(t *testing.T) {
	tests := []struct {
		provider, file, contentType string
		want                        Result
	}{
		{"twilio", "twilio_stop.form", formType, Result{PhoneOnly: true, Events: []Event{{Phone: "+14155552671", EventID: "SM1f0e8ae6ade43cb3c0ce4525424e404f"}}}},
		{"twilio", "twilio_stop.form", "", Result{PhoneOnly: true, Events: []Event{{Phone: "+14155552671", EventID: "SM1f0e8ae6ade43cb3c0ce4525424e404f"}}}},
		{"twilio", "twilio_reply.form", formType, Result{PhoneOnly: true, Ignored: 1}},
		{"twilio", "twilio_start.form", formType, Result{PhoneOnly: true, Ignored: 1}},
		{"telnyx", "telnyx_received.json", jsonType, Result{PhoneOnly: true, Events: []Event{{Phone: "+14155552671", EventID: "b301ed3f-1490-491f-995f-6e64e69674d4"}}}},
		{"telnyx", "telnyx_help.json", jsonType, Result{PhoneOnly: true, Ignored: 1}},
		{"telnyx", "telnyx_finalized.json", jsonType, Result{PhoneOnly: true, Ignored: 1}},
		{"vonage", "vonage_inbound.json", jsonType, Result{PhoneOnly: true, Events: []Event{{Phone: "+447700900001", EventID: "0A0000000123ABCD1"}}}},
		{"vonage", "vonage_inbound.form", formType, Result{PhoneOnly: true, Events: []Event{{Phone: "+447700900001", EventID: "0A0000000123ABCD2"}}}},
		{"vonage", "vonage_messages_inbound.json", jsonType, Result{PhoneOnly: true, Events: []Event{{Phone: "+447700900001", EventID: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab"}}}},
		{"vonage", "vonage_reply.json", jsonType, Result{PhoneOnly: true, Ignored: 1}},
	}
	for _, p := range SMSProviders() {
		tests = append(tests, struct {
			provider, file, contentType string
			want                        Result
		}{p, "generic.json", jsonType, Result{Events: []Event{{Email: "jane.doe@example.com", Phone: "+442079460958"}}, Generic: true}})
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

func TestIsOptOut(t *testing.T) {
	for text, want := range map[string]bool{
		"STOP": true, " stop\n": true, "Stop": true, "STOPALL": true, "unsubscribe": true, "CANCEL": true,
		"end": true, "Quit": true, "REVOKE": true, "optout": true,
		"START": false, "HELP": false, "stop please": false, "": false, "STOP!": false, "OPT OUT": false, "UNSTOP": false,
	} {
		if got := IsOptOut(text); got != want {
			t.Errorf("IsOptOut(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestParseSMSMalformed(t *testing.T) {
	for _, tt := range []struct{ provider, contentType, body string }{
		{"twilio", formType, "Body=STOP&To=%2B14155550100"},
		{"twilio", "text/plain", "STOP"},
		{"twilio", formType, "MessageSid=SM1&Body=STOP&From="},
		{"telnyx", jsonType, `{"data":{"payload":{}}}`},
		{"telnyx", jsonType, `{"data":{"event_type":"message.received","payload":{"from":"+1415","text":"STOP"}}}`},
		{"telnyx", formType, "a=b"},
		{"vonage", jsonType, `{"type":"text","to":"447700900000"}`},
		{"vonage", jsonType, `{"msisdn":447700900001,"text":["STOP"],"messageId":"x"}`},
	} {
		if _, err := Parse(tt.provider, tt.contentType, []byte(tt.body)); err == nil {
			t.Errorf("Parse(%s, %q) = nil error, want malformed", tt.provider, tt.body)
		}
	}
}
