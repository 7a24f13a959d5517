package unsubscribe

import (
	"fmt"
	"strings"
)

// parseTwilio reads Twilio's incoming-message webhook: an application/x-www-form-urlencoded
// POST with MessageSid, AccountSid, From, To, Body, NumMedia... and, where Advanced Opt-Out is
// on, OptOutType (STOP, START or HELP), which is kept as the message's ProviderKeyword. The
// generic JSON body is accepted too.
func parseTwilio(contentType string, body []byte) (Result, error) {
	if res, ok, err := smsGeneric(contentType, body); ok {
		return res, err
	}
	kind, err := classify(contentType, body)
	if err != nil {
		return Result{}, err
	}
	if kind != kindForm {
		return Result{}, fmt.Errorf("%w: Twilio posts form-encoded bodies", ErrMalformed)
	}
	v, err := formValues(body)
	if err != nil {
		return Result{}, err
	}
	if !v.Has("From") || !(v.Has("MessageSid") || v.Has("SmsSid")) {
		return Result{}, fmt.Errorf("%w: not a Twilio incoming message", ErrMalformed)
	}
	id := v.Get("MessageSid")
	if id == "" {
		id = v.Get("SmsSid")
	}
	return Message{
		From: v.Get("From"), To: v.Get("To"), Text: v.Get("Body"), ID: id,
		ProviderKeyword: strings.ToUpper(strings.TrimSpace(v.Get("OptOutType"))),
	}.result()
}
