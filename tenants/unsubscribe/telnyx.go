package unsubscribe

import (
	"fmt"
	"strings"
)

// parseTelnyx reads Telnyx's messaging webhook (API v2): a JSON object
// {"data": {"event_type", "id", "payload": {"from": {"phone_number"}, "text", "direction", ...}}, "meta": {...}}.
// A "message.received" event whose text is an opt-out keyword is an opt-out of its sender;
// every other event (message.sent, message.finalized, other texts) is ignored. data.id, the
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
	m := smsMessage{}
	if m.from, err = from.str("phone_number"); err != nil {
		return Result{}, err
	}
	if m.text, err = payload.str("text"); err != nil {
		return Result{}, err
	}
	if m.id, err = data.str("id"); err != nil {
		return Result{}, err
	}
	if m.id == "" {
		if m.id, err = payload.str("id"); err != nil {
			return Result{}, err
		}
	}
	return m.result()
}
