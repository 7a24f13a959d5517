package web

import "time"

// PathWebhookTests is where "Send test" posts: WebhookTestPath(provider).
const PathWebhookTests = "/admin/webhooks/test"

// WebhookTestPath is the "Send test" action of one provider.
func WebhookTestPath(provider string) string { return PathWebhookTests + "/" + provider }

// WebhookDiagItem is one provider's unsubscribe webhook as the Webhook credentials page
// shows it: the URL to paste and what arrived (docs/API.md §8.4). Never a body or an address.
type WebhookDiagItem struct {
	ProviderWebhook
	LastDelivery     *time.Time
	LastEvents       int // provider events in the last delivery
	LastUnsubscribed int // records whose consent it revoked
	LastRefusal      *time.Time
	LastReason       string // a WebhookRefusalLabels key
	Days             []WebhookDayItem
}

// WebhookDayItem counts one day's deliveries.
type WebhookDayItem struct {
	Day               string // YYYY-MM-DD, UTC
	Accepted, Refused int
}

// WebhookRefusalLabels say in words why a delivery was refused, by reason code.
var WebhookRefusalLabels = map[string]string{
	"bad_signature":   "bad signature",
	"stale_timestamp": "stale timestamp",
	"unknown_token":   "unknown or revoked token",
	"wrong_scope":     "credential without the unsubscribe scope",
	"malformed_body":  "malformed body",
	"no_secret":       "signed, but no secret is set for this provider",
}

func refusalLabel(code string) string {
	if l, ok := WebhookRefusalLabels[code]; ok {
		return l
	}
	return code
}
