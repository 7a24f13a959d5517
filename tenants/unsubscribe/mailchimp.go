package unsubscribe

import (
	"fmt"
	"net/url"
	"strings"
)

// parseMailchimp reads Mailchimp's audience webhook, which posts
// application/x-www-form-urlencoded fields in PHP's bracket notation:
// type=unsubscribe&fired_at=...&data[action]=unsub&data[email]=...&data[merges][PHONE]=...
// An "unsubscribe" whose data[action] is "unsub" or "delete" is an unsubscribe; the other types
// (subscribe, profile, upemail, cleaned, campaign) are ignored. The same fields nested as JSON
// ({"type": ..., "data": {...}}) and the generic JSON body are accepted too.
func parseMailchimp(contentType string, body []byte) (Result, error) {
	kind, err := classify(contentType, body)
	if err != nil {
		return Result{}, err
	}
	if kind == kindJSON {
		return parseJSON(body, mailchimpJSONEvent)
	}
	values, err := url.ParseQuery(string(trimBody(body)))
	if err != nil {
		return Result{}, fmt.Errorf("%w: unreadable form body", ErrMalformed)
	}
	if !values.Has("type") {
		return Result{}, fmt.Errorf("%w: form body without \"type\"", ErrMalformed)
	}
	var c collector
	err = c.add(mailchimpEvent(values.Get("type"), values.Get("data[action]"),
		values.Get("data[email]"), values.Get("data[merges][PHONE]")))
	if err != nil {
		return Result{}, err
	}
	return c.res, nil
}

func mailchimpJSONEvent(f fields) (Event, bool, error) {
	typ, err := f.str("type")
	if err != nil {
		return Event{}, false, err
	}
	data, err := f.object("data")
	if err != nil {
		return Event{}, false, err
	}
	action, err := data.str("action")
	if err != nil {
		return Event{}, false, err
	}
	email, err := data.str("email")
	if err != nil {
		return Event{}, false, err
	}
	merges, err := data.object("merges")
	if err != nil {
		return Event{}, false, err
	}
	phone, err := merges.str("PHONE")
	if err != nil {
		return Event{}, false, err
	}
	return mailchimpEvent(typ, action, email, phone)
}

// mailchimpEvent applies Mailchimp's rules to the fields of one webhook, however encoded.
// Mailchimp sends no event id: data[id] is the member's, not the event's.
func mailchimpEvent(typ, action, email, phone string) (Event, bool, error) {
	typ = strings.ToLower(strings.TrimSpace(typ))
	if typ == "" {
		return Event{}, false, fmt.Errorf("%w: \"type\" is missing", ErrMalformed)
	}
	if typ != "unsubscribe" {
		return Event{}, false, nil
	}
	switch strings.ToLower(strings.TrimSpace(action)) {
	case "unsub", "delete", "":
		// An unsubscribe without an action is still an opt-out.
		return Event{Email: email, Phone: phone}, true, nil
	}
	return Event{}, false, nil
}
