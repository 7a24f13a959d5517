package dispatch

import (
	"context"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// A tenant's mail server is an endpoint of its own (URL tenants.MailEndpointURL): the events
// it takes (a confirmation to send, a thank-you) are delivered as mail by the Mailer instead
// of as an HTTP POST, through the same outbox. So a mail is queued in the same write as the
// record that causes it, survives a crash, is sent at least once, retried with backoff, and a
// tenant's slow or hanging mail server holds at most its endpoint's slots, never another
// tenant's. A mail's address is read when it is sent, never stored with the delivery: an
// erasure before then leaves nothing to send.

// Mailer sends the deliveries of a tenant's mail endpoint.
type Mailer interface {
	// Mail sends dl's mail. result is what the delivery log keeps (the server's answer or a
	// short class, never an address); sent says the server accepted it; final says that no
	// repeat would change the answer (an SMTP 5xx, nothing to send), so it is not retried.
	Mail(ctx context.Context, dl tenants.Delivery) (result string, sent, final bool)
}

// mailTimeout bounds one mail's attempt, every SMTP step included; mailMaxDelay is the
// longest wait between a mail's retries.
const (
	mailTimeout  = 30 * time.Second
	mailMaxDelay = time.Hour
)

// attemptMail sends dl as mail once and returns what stores the outcome. A mail that keeps
// failing for the retry window fails alone: the tenant's mail endpoint is never disabled by
// one recipient's server.
func (d *Dispatcher) attemptMail(ctx context.Context, dl tenants.Delivery) (store func() error) {
	if d.cfg.Mailer == nil {
		now := d.now()
		return func() error { return d.finish(ctx, dl, tenants.DeliveryFailed, "mail not set up on this server", now) }
	}
	actx, cancel := context.WithTimeout(ctx, mailTimeout)
	result, sent, final := d.cfg.Mailer.Mail(actx, dl)
	cancel()
	now := d.now()
	switch {
	case sent:
		return func() error { return d.finish(ctx, dl, tenants.DeliveryDelivered, result, now) }
	}
	dl.Attempts++
	if final || now.Sub(dl.CreatedAt) >= d.cfg.Window {
		return func() error { return d.finish(ctx, dl, tenants.DeliveryFailed, result, now) }
	}
	dl.NextAt = now.Add(min(d.delay(dl.Attempts), mailMaxDelay))
	dl.LastAt, dl.LastResult = &now, result
	return func() error { return d.repo.Update(ctx, dl) }
}
