package unsubscribe

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
)

// SMSProviders lists the inbound-SMS provider path names: twilio, telnyx, vonage. Their
// opt-outs revoke general contact by phone only (Result.PhoneOnly).
func SMSProviders() []string {
	return []string{"twilio", "telnyx", "vonage"}
}

// AllProviders lists every provider path name, the e-mail providers first.
func AllProviders() []string {
	return append(Providers(), SMSProviders()...)
}

// IsSMS reports whether provider is an inbound-SMS provider.
func IsSMS(provider string) bool {
	for _, p := range SMSProviders() {
		if p == provider {
			return true
		}
	}
	return false
}

// Message is one inbound SMS as a provider reports it, its numbers as sent (the caller
// normalises them). What it asks for is the tenant's to decide (Keywords.Classify).
type Message struct {
	From, To string
	Text     string
	// ID is the provider's message id ("" when the body carries none): one message is
	// applied once.
	ID string
	// ProviderKeyword is the provider's own reading of the text (Twilio's OptOutType: STOP,
	// START, HELP), "" when it gave none.
	ProviderKeyword string
}

// result is the body of one inbound message: the message, which must name its sender.
func (m Message) result() (Result, error) {
	m.From, m.To = strings.TrimSpace(m.From), strings.TrimSpace(m.To)
	m.ID = strings.TrimSpace(m.ID)
	if m.From == "" {
		return Result{}, fmt.Errorf("%w: inbound message without a sender number", ErrMalformed)
	}
	return Result{Messages: []Message{m}, PhoneOnly: true}, nil
}

// smsGeneric reads a JSON body posted to an SMS path that is the generic {email, phone}
// object (a client with a bearer key); ok is false when the body is something else.
func smsGeneric(contentType string, body []byte, providerKeys ...string) (Result, bool, error) {
	kind, err := classify(contentType, body)
	if err != nil || kind != kindJSON {
		return Result{}, false, nil
	}
	f, err := decodeFields(body)
	if err != nil {
		return Result{}, false, nil
	}
	for _, k := range append(providerKeys, discriminators[:]...) {
		if f.has(k) {
			return Result{}, false, nil
		}
	}
	res, err := parseGeneric(f)
	return res, true, err
}

// formValues parses a form-encoded body.
func formValues(body []byte) (url.Values, error) {
	v, err := url.ParseQuery(string(bytes.TrimSpace(body)))
	if err != nil {
		return nil, fmt.Errorf("%w: unreadable form body", ErrMalformed)
	}
	return v, nil
}
