package unsubscribe

import (
	"fmt"
	"strings"
)

// parseTelnyx reads Telnyx's messaging webhook (API v2): a JSON object
// {"data": {"event_type", "id", "payload": {"from": {"phone_number"}, "to": [{"phone_number"}], "text", ...}}, "meta": {...}}.
// A "message.received" event is an inbound message; every other event (message.sent,
// message.finalized) is ignored. data.id, the
// webhook event's id, stays the same when Telnyx retries a delivery. The generic JSON body is
// accepted too.
func parseTelnyx(contentType string, body []byte) (Result, error) {
	if res, ok, err := smsGeneric(contentType, body, "data", "meta"); ok {
		return res, err
	}
	kind, err := classify(contentType, body)
	if err != nil {
		return Result{}, err
	}
	if kind != kindJSON {
		return Result{}, fmt.Errorf("%w: Telnyx posts JSON", ErrMalformed)
	}
	f, err := decodeFields(body)
	if err != nil {
		return Result{}, err
	}
	data, err := f.object("data")
	if err != nil {
		return Result{}, err
	}
	typ, err := requireName(data, "event_type")
	if err != nil {
		return Result{}, err
	}
	if strings.ToLower(typ) != "message.received" {
		return Result{Ignored: 1, PhoneOnly: true}, nil
	}
	payload, err := data.object("payload")
	if err != nil {
		return Result{}, err
	}
	from, err := payload.object("from")
	if err != nil {
		return Result{}, err
	}
	m := Message{}
	if m.From, err = from.str("phone_number"); err != nil {
		return Result{}, err
	}
	if m.To, err = telnyxTo(payload); err != nil {
		return Result{}, err
	}
	if m.Text, err = payload.str("text"); err != nil {
		return Result{}, err
	}
	if m.ID, err = data.str("id"); err != nil {
		return Result{}, err
	}
	if m.ID == "" {
		if m.ID, err = payload.str("id"); err != nil {
			return Result{}, err
		}
	}
	return m.result()
}

// telnyxTo reads the number a message was sent to: payload.to is an array of objects, the
// first one's phone_number the tenant's number ("" when there is none).
func telnyxTo(payload fields) (string, error) {
	if raw, ok := payload["to"]; ok && len(raw) > 0 && raw[0] == '"' {
		return payload.str("to") // a single number, as some API versions write it
	}
	to, err := payload.objects("to")
	if err != nil || len(to) == 0 {
		return "", err
	}
	return to[0].str("phone_number")
}
