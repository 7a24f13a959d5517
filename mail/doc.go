// Package mail sends a tenant's mails (confirmations, reminders, thanks)
// through the tenant's own SMTP server, one mail per session, and renders
// them from built-in or tenant-written templates.
//
// It does: validate a Server (host, port, TLS mode, sender), send one
// Message with go-mail under one timeout and classify the result as Sent,
// Retry or Final with the server's reply, scrubbed of addresses so that
// it can be logged; render templates with {{placeholder}}s in English and
// German; add the one-click unsubscribe headers of RFC 8058.
//
// It does not queue, retry, rate-limit or remember anything: the durable
// outbox lives in the stores, which call Send and act on its Outcome. It
// does not deliver directly to recipients' MX hosts either; the tenant's
// server (a submission service) does that.
package mail
