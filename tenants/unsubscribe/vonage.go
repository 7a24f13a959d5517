package unsubscribe

import (
	"fmt"
	"strings"
)

// parseVonage reads Vonage's inbound SMS in either of its shapes:
//   - the SMS API's inbound message: msisdn (the sender, international digits without "+"),
//     to, messageId, text, type, keyword, message-timestamp (and timestamp, nonce, sig when
//     signed), sent as JSON ("POST-JSON"), as a form ("POST") or as the query of a GET (the
//     handler passes the query here as a form body);
//   - the Messages API's inbound message: JSON with channel "sms", message_uuid, from, to,
//     text, message_type.
//
// A text that is an opt-out keyword is an opt-out of its sender; any other is ignored. The
// generic JSON body is accepted too.
func parseVonage(contentType string, body []byte) (Result, error) {
	if res, ok, err := smsGeneric(contentType, body, "msisdn", "from", "text", "message_uuid", "messageId", "channel"); ok {
		return res, err
	}
	kind, err := classify(contentType, body)
	if err != nil {
		return Result{}, err
	}
	var get func(key string) (string, error)
	if kind == kindJSON {
		f, err := decodeFields(body)
		if err != nil {
			return Result{}, err
		}
		get = f.id
	} else {
		v, err := formValues(body)
		if err != nil {
			return Result{}, err
		}
		get = func(key string) (string, error) { return v.Get(key), nil }
	}
	var m smsMessage
	for _, field := range []struct {
		dst  *string
		keys []string
	}{{&m.from, []string{"msisdn", "from"}}, {&m.text, []string{"text"}}, {&m.id, []string{"messageId", "message_uuid"}}} {
		for _, k := range field.keys {
			if *field.dst != "" {
				break
			}
			if *field.dst, err = get(k); err != nil {
				return Result{}, err
			}
		}
	}
	if m.from == "" && m.id == "" {
		return Result{}, fmt.Errorf("%w: not a Vonage inbound message", ErrMalformed)
	}
	// Vonage writes numbers in international form without the "+".
	if f := strings.TrimSpace(m.from); f != "" && !strings.HasPrefix(f, "+") && isDigits(f) {
		m.from = "+" + f
	}
	return m.result()
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
