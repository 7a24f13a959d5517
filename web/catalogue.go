package web

import (
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// ScopeOptions lists the API key scopes in the order the issue form shows them, each with
// what it allows.
func ScopeOptions() []Option {
	return []Option{
		{Value: ScopeSubmissionsWrite, Label: "Accept form submissions"},
		{Value: ScopeRecordsWrite, Label: "Create digitisation and canvassing submissions, phone call tasks"},
		{Value: ScopeSubmissionsRead, Label: "Read submissions and consent state"},
		{Value: ScopeGDPRAnonymise, Label: "Search and anonymise personal data"},
		{Value: ScopeUnsubscribeWrite, Label: "Unsubscribe (provider webhooks)"},
		{Value: ScopeGDPRExport, Label: "Export a person's data (access requests)"},
		{Value: ScopeAll, Label: "All of the above"},
	}
}

// FieldTypeOptions lists the custom field types.
func FieldTypeOptions() []Option {
	return []Option{
		{Value: FieldText, Label: "Text"},
		{Value: tenants.FieldEmail, Label: "E-mail"},
		{Value: tenants.FieldPhone, Label: "Phone"},
		{Value: tenants.FieldTextarea, Label: "Long text"},
		{Value: tenants.FieldSelect, Label: "Select (one of the options)"},
		{Value: tenants.FieldCheckbox, Label: "Checkbox"},
		{Value: FieldNumber, Label: "Number"},
		{Value: FieldDate, Label: "Date"},
		{Value: FieldBoolean, Label: "Yes/no"},
		{Value: FieldChoice, Label: "Choice"},
	}
}

// StatusOptions lists the consent statuses for filters.
func StatusOptions() []Option {
	return []Option{
		{Value: StatusGranted, Label: StatusLabel(StatusGranted)},
		{Value: StatusExpired, Label: StatusLabel(StatusExpired)},
		{Value: StatusRevoked, Label: StatusLabel(StatusRevoked)},
		{Value: StatusNotGranted, Label: StatusLabel(StatusNotGranted)},
	}
}

// The consents under their API names (the domain's, tenants.ConsentName).
const (
	ConsentPrimaryPurpose      = string(tenants.ConsentPrimaryPurpose)
	ConsentGeneralContactEmail = string(tenants.ConsentGeneralContactEmail)
	ConsentGeneralContactPhone = string(tenants.ConsentGeneralContactPhone)
)

// ConsentOptions lists the three consents by their API names.
func ConsentOptions() []Option {
	return []Option{
		{Value: ConsentPrimaryPurpose, Label: "Primary purpose"},
		{Value: ConsentGeneralContactEmail, Label: "General contact by e-mail"},
		{Value: ConsentGeneralContactPhone, Label: "General contact by phone"},
	}
}

// ConsentLabel is a consent's label ("General contact by e-mail"); an unknown name is
// returned as it is.
func ConsentLabel(name string) string {
	for _, o := range ConsentOptions() {
		if o.Value == name {
			return o.Label
		}
	}
	return name
}

// ConsentPhrase is a consent's label as running text ("general contact by e-mail"); an
// unknown name is returned as it is.
func ConsentPhrase(name string) string {
	l := ConsentLabel(name)
	if l == name {
		return name
	}
	return strings.ToLower(l[:1]) + l[1:]
}

// ProviderWebhooks returns the unsubscribe webhook URL of every provider under baseURL
// (the service's public origin, e.g. https://consent.example.org), with a setup hint each.
func ProviderWebhooks(baseURL string) []ProviderWebhook {
	base := strings.TrimRight(baseURL, "/") + "/api/v1/"
	return []ProviderWebhook{
		{Provider: "brevo", Label: "Brevo", URL: base + "brevo/unsubscribe",
			Hint: "Add a webhook for “Unsubscribed” events with header Authorization: Bearer <API key with unsubscribe:write>."},
		{Provider: "mailchimp", Label: "Mailchimp", URL: base + "mailchimp/unsubscribe?token=<webhook token>",
			Hint: "Issue a token under Webhook credentials, then add the URL shown there in Audience → Webhooks with “Unsubscribes” ticked."},
		{Provider: "sendgrid", Label: "SendGrid", URL: base + "sendgrid/unsubscribe",
			Hint: "Event Webhook with “Unsubscribe” and “Group Unsubscribe”; enable signing and paste its public key under Webhook credentials."},
		{Provider: "mailjet", Label: "Mailjet", URL: base + "mailjet/unsubscribe",
			Hint: "Event notification for “Unsub”; put an API key in the URL as the password: https://api:<API key>@host/api/v1/mailjet/unsubscribe."},
		{Provider: "postmark", Label: "Postmark", URL: base + "postmark/unsubscribe",
			Hint: "Webhook for “Subscription change” with Basic auth: any user name, an API key with unsubscribe:write as password."},
		{Provider: "twilio", Label: "Twilio (SMS)", URL: base + "twilio/unsubscribe",
			Hint: "Messaging → your number or Messaging Service → “A message comes in”: this URL, HTTP POST. Set the auth token below; a STOP revokes general contact by phone."},
		{Provider: "telnyx", Label: "Telnyx (SMS)", URL: base + "telnyx/unsubscribe",
			Hint: "Messaging profile → Inbound webhook URL: this URL (API v2). Set the account's public key (Keys & Credentials → Public Key) below."},
		{Provider: "vonage", Label: "Vonage (SMS)", URL: base + "vonage/unsubscribe",
			Hint: "Settings → Inbound SMS webhooks (or the Messages application's inbound URL): this URL, POST-JSON or GET. Set the signature secret below and ask Vonage to sign webhooks."},
	}
}
