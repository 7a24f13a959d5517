package unsubscribe

import "strings"

// parseSendGrid reads SendGrid's Event Webhook: a JSON array of events of mixed types, each
// with "event", "email", "timestamp" and "sg_event_id". "unsubscribe" (global) and
// "group_unsubscribe" (an ASM group, with "asm_group_id") are unsubscribes; processed,
// delivered, open, click, bounce, dropped, spamreport, deferred, group_resubscribe... are
// ignored. A lone event object is accepted as a batch of one.
func parseSendGrid(contentType string, body []byte) (Result, error) {
	return parseJSONOnly(contentType, body, sendGridEvent)
}

func sendGridEvent(f fields) (Event, bool, error) {
	name, err := requireName(f, "event")
	if err != nil {
		return Event{}, false, err
	}
	switch strings.ToLower(name) {
	case "unsubscribe", "group_unsubscribe":
	default:
		return Event{}, false, nil
	}
	email, err := f.str("email")
	if err != nil {
		return Event{}, false, err
	}
	id, err := f.str("sg_event_id")
	if err != nil {
		return Event{}, false, err
	}
	return Event{Email: email, EventID: id}, true, nil
}
