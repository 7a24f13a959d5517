package unsubscribe

import "strings"

// parseBrevo reads Brevo's webhooks: one JSON event per request, or an array of them when the
// webhook is created with "batched": true. Marketing webhooks report an unsubscribe as
// "unsubscribe" (with "campaign name", "list_id", "sending_ip", "ts_event"...); transactional
// webhooks as "unsubscribed" (with "message-id"). Every other event ("delivered", "opened",
// "click", "hard_bounce", "spam", "list_addition"...) is ignored.
func parseBrevo(contentType string, body []byte) (Result, error) {
	return parseJSONOnly(contentType, body, brevoEvent)
}

func brevoEvent(f fields) (Event, bool, error) {
	name, err := requireName(f, "event")
	if err != nil {
		return Event{}, false, err
	}
	switch strings.ToLower(name) {
	case "unsubscribe", "unsubscribed":
	default:
		return Event{}, false, nil
	}
	email, err := f.str("email")
	if err != nil {
		return Event{}, false, err
	}
	// Marketing events carry no event id (their "id" is the webhook's); transactional ones name
	// the message the recipient unsubscribed from.
	messageID, err := f.id("message-id")
	if err != nil {
		return Event{}, false, err
	}
	return Event{Email: email, EventID: messageID}, true, nil
}
