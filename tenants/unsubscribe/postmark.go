package unsubscribe

import (
	"fmt"
	"strings"
)

// parsePostmark reads Postmark's webhooks, one JSON record per request (an array is accepted
// too). A "SubscriptionChange" with "SuppressSending": true — the recipient unsubscribed,
// complained, hard-bounced or was suppressed by hand — is an unsubscribe of "Recipient";
// SuppressSending false is a reactivation and, like every other RecordType (Delivery, Bounce,
// Open, Click, SpamComplaint), is ignored.
func parsePostmark(contentType string, body []byte) (Result, error) {
	return parseJSONOnly(contentType, body, postmarkEvent)
}

func postmarkEvent(f fields) (Event, bool, error) {
	recordType, err := requireName(f, "RecordType")
	if err != nil {
		return Event{}, false, err
	}
	if !strings.EqualFold(recordType, "SubscriptionChange") {
		return Event{}, false, nil
	}
	suppress, present, err := f.boolean("SuppressSending")
	if err != nil {
		return Event{}, false, err
	}
	if !present {
		return Event{}, false, fmt.Errorf("%w: \"SuppressSending\" is missing", ErrMalformed)
	}
	if !suppress {
		return Event{}, false, nil
	}
	recipient, err := f.str("Recipient")
	if err != nil {
		return Event{}, false, err
	}
	// MessageID is null for manual suppressions by the customer or an admin.
	messageID, err := f.str("MessageID")
	if err != nil {
		return Event{}, false, err
	}
	return Event{Email: recipient, EventID: messageID}, true, nil
}
