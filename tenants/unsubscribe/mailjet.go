package unsubscribe

import "strings"

// parseMailjet reads Mailjet's Event API: one JSON event per request, or an array of them when
// the callback URL uses version 2 (grouped events). "unsub" is an unsubscribe (with
// "mj_list_id", "ip", "geo", "agent"); sent, open, click, bounce, spam and blocked are ignored.
func parseMailjet(contentType string, body []byte) (Result, error) {
	return parseJSONOnly(contentType, body, mailjetEvent)
}

func mailjetEvent(f fields) (Event, bool, error) {
	name, err := requireName(f, "event")
	if err != nil {
		return Event{}, false, err
	}
	if strings.ToLower(name) != "unsub" {
		return Event{}, false, nil
	}
	email, err := f.str("email")
	if err != nil {
		return Event{}, false, err
	}
	// MessageID is a number beyond float64 precision, kept as its digits; newer payloads add
	// Message_GUID. Marketing unsubscribes may carry MessageID 0.
	id, err := f.id("MessageID")
	if err != nil {
		return Event{}, false, err
	}
	if id == "" || id == "0" {
		if id, err = f.str("Message_GUID"); err != nil {
			return Event{}, false, err
		}
	}
	return Event{Email: email, EventID: id}, true, nil
}
