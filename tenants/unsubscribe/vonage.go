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
// The generic JSON body is accepted too.
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
	var m Message
	for _, field := range []struct {
		dst  *string
		keys []string
	}{{&m.From, []string{"msisdn", "from"}}, {&m.To, []string{"to"}}, {&m.Text, []string{"text"}}, {&m.ID, []string{"messageId", "message_uuid"}}} {
		for _, k := range field.keys {
			if *field.dst != "" {
				break
			}
			if *field.dst, err = get(k); err != nil {
				return Result{}, err
			}
		}
	}
	if m.From == "" && m.ID == "" {
		return Result{}, fmt.Errorf("%w: not a Vonage inbound message", ErrMalformed)
	}
	// Vonage writes numbers in international form without the "+".
	m.From, m.To = vonageNumber(m.From), vonageNumber(m.To)
	return m.result()
}

// vonageNumber is a number as Vonage writes it (international digits without the "+") in
// the form the other providers use.
func vonageNumber(n string) string {
	if n = strings.TrimSpace(n); n != "" && !strings.HasPrefix(n, "+") && isDigits(n) {
		return "+" + n
	}
	return n
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
