package unsubscribe

// SampleAddress is the address of the sample events (the admin UI's "Send test"): on a
// reserved domain, so it matches no one and changes nothing.
const SampleAddress = "send-test@consentforms.invalid"

// SamplePhone is the sender of the SMS samples: a number of the UK's range reserved for
// drama (Ofcom), which no subscriber has.
const SamplePhone = "+447700900999"

// Sample returns a minimal unsubscribe event of provider as the provider sends it, for
// SampleAddress; ok is false for an unknown provider.
func Sample(provider string) (contentType string, body []byte, ok bool) {
	switch provider {
	case "brevo":
		return "application/json", []byte(`{"event":"unsubscribe","email":"` + SampleAddress + `","id":1,"ts_event":1712671957}`), true
	case "mailchimp":
		return "application/x-www-form-urlencoded", []byte("type=unsubscribe&fired_at=2024-04-09+21%3A40%3A57&data%5Baction%5D=unsub&data%5Bemail%5D=send-test%40consentforms.invalid"), true
	case "sendgrid":
		return "application/json", []byte(`[{"email":"` + SampleAddress + `","timestamp":1712656800,"event":"unsubscribe","sg_event_id":"send-test"}]`), true
	case "mailjet":
		return "application/json", []byte(`{"event":"unsub","time":1712657400,"email":"` + SampleAddress + `"}`), true
	case "postmark":
		return "application/json", []byte(`{"RecordType":"SubscriptionChange","Recipient":"` + SampleAddress + `","SuppressSending":true,"ChangedAt":"2024-04-09T10:53:34Z"}`), true
	case "twilio":
		return "application/x-www-form-urlencoded", []byte("MessageSid=SMsendtest&AccountSid=ACsendtest&From=%2B" + SamplePhone[1:] + "&To=%2B447700900000&Body=STOP&NumMedia=0&ApiVersion=2010-04-01"), true
	case "telnyx":
		return "application/json", []byte(`{"data":{"event_type":"message.received","id":"send-test","payload":{"direction":"inbound","from":{"phone_number":"` + SamplePhone + `"},"text":"STOP","type":"SMS"},"record_type":"event"},"meta":{"attempt":1}}`), true
	case "vonage":
		return "application/json", []byte(`{"msisdn":"` + SamplePhone[1:] + `","to":"447700900000","messageId":"send-test","text":"STOP","type":"text"}`), true
	}
	return "", nil, false
}
