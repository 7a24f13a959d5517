package unsubscribe

// SampleAddress is the address of the sample events (the admin UI's "Send test"): on a
// reserved domain, so it matches no one and changes nothing.
const SampleAddress = "send-test@consentforms.invalid"

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
	}
	return "", nil, false
}
