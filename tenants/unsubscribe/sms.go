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

// optOutKeywords are the industry opt-out keywords (CTIA, carriers, Twilio's defaults).
var optOutKeywords = map[string]bool{
	"stop": true, "stopall": true, "unsubscribe": true, "cancel": true,
	"end": true, "quit": true, "revoke": true, "optout": true,
}

// IsOptOut reports whether an SMS text is an opt-out: the text, trimmed and case-folded, is
// one of the keywords. "START", "HELP", "stop please" or any other reply is not.
func IsOptOut(text string) bool {
	return optOutKeywords[strings.ToLower(strings.TrimSpace(text))]
}

// smsMessage is one inbound SMS as a provider reports it.
type smsMessage struct {
	from, text, id string
	optOut         bool // the provider itself classed it as an opt-out (Twilio's OptOutType=STOP)
}

// result turns an inbound message into the events of its body: one phone-only unsubscribe
// for an opt-out from a sender, nothing (one ignored event) for any other text.
func (m smsMessage) result() (Result, error) {
	if !m.optOut && !IsOptOut(m.text) {
		return Result{Ignored: 1, PhoneOnly: true}, nil
	}
	if strings.TrimSpace(m.from) == "" {
		return Result{}, fmt.Errorf("%w: opt-out without a sender number", ErrMalformed)
	}
	var c collector
	if err := c.add(Event{Phone: m.from, EventID: m.id}, true, nil); err != nil {
		return Result{}, err
	}
	c.res.PhoneOnly = true
	return c.res, nil
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
