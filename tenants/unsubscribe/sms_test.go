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
		{"twilio", "twilio_stop.form", formType, sms(Message{From: "+14155552671", To: "+14155550100", Text: "STOP", ID: "SM1f0e8ae6ade43cb3c0ce4525424e404f", ProviderKeyword: "STOP"})},
		{"twilio", "twilio_stop.form", "", sms(Message{From: "+14155552671", To: "+14155550100", Text: "STOP", ID: "SM1f0e8ae6ade43cb3c0ce4525424e404f", ProviderKeyword: "STOP"})},
		{"twilio", "twilio_start.form", formType, sms(Message{From: "+14155552671", To: "+14155550100", Text: "START", ID: "SM3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f", ProviderKeyword: "START"})},
		{"telnyx", "telnyx_received.json", jsonType, sms(Message{From: "+14155552671", To: "+14155550100", Text: " Stop ", ID: "b301ed3f-1490-491f-995f-6e64e69674d4"})},
		{"twilio", "twilio_reply.form", formType, sms(Message{From: "+14155552671", To: "+14155550100", Text: "Hello, see you at the rally!", ID: "SM2a8b1c9d0e7f6a5b4c3d2e1f0a9b8c7d"})},
		{"telnyx", "telnyx_help.json", jsonType, sms(Message{From: "+14155552671", To: "+14155550100", Text: "HELP", ID: "0c1f5b1e-7a2d-4e0c-9c2b-2f6d1d3c4e5f"})},
		{"telnyx", "telnyx_finalized.json", jsonType, Result{PhoneOnly: true, Ignored: 1}},
		{"vonage", "vonage_inbound.json", jsonType, sms(Message{From: "+447700900001", To: "+447700900000", Text: "STOP", ID: "0A0000000123ABCD1"})},
		{"vonage", "vonage_inbound.form", formType, sms(Message{From: "+447700900001", To: "+447700900000", Text: "Unsubscribe", ID: "0A0000000123ABCD2"})},
		{"vonage", "vonage_messages_inbound.json", jsonType, sms(Message{From: "+447700900001", To: "+447700900000", Text: "quit", ID: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab"})},
		{"vonage", "vonage_reply.json", jsonType, sms(Message{From: "+447700900001", To: "+447700900000", Text: "Yes, I will come", ID: "0A0000000123ABCD3"})},
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

// sms is the result of a body carrying one inbound message.
func sms(m Message) Result { return Result{PhoneOnly: true, Messages: []Message{m}} }

func TestIsOptOut(t *testing.T) {
	for text, want := range map[string]bool{
		"STOP": true, " stop\n": true, "Stop": true, "STOPALL": true, "unsubscribe": true, "CANCEL": true,
		"end": true, "Quit": true, "REVOKE": true, "optout": true, "STOP!": true, "stop all": true,
		"START": false, "HELP": false, "stop please": false, "": false, "OPT OUT": false, "UNSTOP": false, "Stopp": false,
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
		{"vonage", jsonType, `{"to":"447700900000","messageId":"x","text":"STOP"}`},
		{"telnyx", jsonType, `{"data":{"event_type":"message.received","payload":{"from":{"phone_number":"+1415"},"to":"+1","text":"STOP","to":{"phone_number":"+1"}}}}`},
		{"telnyx", jsonType, `{"data":{"event_type":"message.received","payload":{"from":{"phone_number":"+1415"},"text":"STOP","to":["+1"]}}}`},
	} {
		if _, err := Parse(tt.provider, tt.contentType, []byte(tt.body)); err == nil {
			t.Errorf("Parse(%s, %q) = nil error, want malformed", tt.provider, tt.body)
		}
	}
}
