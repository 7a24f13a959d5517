package tenants

// MailServer is a tenant's outgoing mail server (SMTP submission): the service sends the
// tenant's confirmation and thank-you mails through it. It is stored whole, sealed under the
// server's secrets key, as the tenant's secret of provider ProviderMail (SMSRepo): the store
// never holds the password in plaintext, and nothing shows it again once set.
type MailServer struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	// TLS is "starttls", "implicit" or "none" (a loopback host only).
	TLS      string `json:"tls"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
	// From is the sender ("Name <address>"), ReplyTo where answers go ("" none).
	From    string `json:"from"`
	ReplyTo string `json:"replyTo,omitempty"`
}

// ProviderMail names the sealed mail server among a tenant's provider secrets.
const ProviderMail = "smtp"

// ActionMailServerSet is the audit action of setting a tenant's mail server; its entry names
// the host, never an address or the password.
const ActionMailServerSet = "mail.server_set"

// mailEvents are the events a tenant's mail endpoint takes: a confirmation to send, and the
// grants of a new record, which send the thank-you where its form asks for one.
var mailEvents = []string{EventTypeConfirmationRequested, EventTypeConsentGranted}

// MailEvents returns them afresh: a caller may change its copy.
func MailEvents() []string { return append([]string(nil), mailEvents...) }
