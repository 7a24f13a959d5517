package dispatch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// One attempt at a delivery: the endpoint's state, the signed POST and the outcome to store,
// with the retry delay.

// attempt sends dl once and returns what stores the outcome: the endpoint's next attempt
// need not wait for that write.
func (d *Dispatcher) attempt(ctx context.Context, dl tenants.Delivery) (store func() error) {
	ep, err := d.repo.Endpoint(ctx, dl.TenantID, dl.EndpointID)
	now := d.now()
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return func() error { return d.finish(ctx, dl, tenants.DeliveryFailed, "endpoint deleted", now) }
	case err != nil:
		return func() error { return err }
	case ep.FailingSince != nil:
		return func() error { return d.finish(ctx, dl, tenants.DeliveryFailed, "endpoint disabled", now) }
	case ep.URL == tenants.MailEndpointURL:
		return d.attemptMail(ctx, dl)
	}
	result, ok := d.send(ctx, ep, dl)
	now = d.now()
	if ok {
		return func() error { return d.finish(ctx, dl, tenants.DeliveryDelivered, result, now) }
	}
	dl.Attempts++
	if now.Sub(dl.CreatedAt) >= d.cfg.Window {
		return func() error {
			if err := d.finish(ctx, dl, tenants.DeliveryFailed, result, now); err != nil {
				return err
			}
			d.log.Warn("webhook endpoint disabled", "tenant", dl.TenantID, "endpoint", dl.EndpointID)
			return d.repo.SetFailing(ctx, dl.TenantID, dl.EndpointID, &now)
		}
	}
	dl.NextAt = now.Add(d.delay(dl.Attempts))
	dl.LastAt, dl.LastResult = &now, result
	return func() error { return d.repo.Update(ctx, dl) }
}

func (d *Dispatcher) finish(ctx context.Context, dl tenants.Delivery, status, result string, now time.Time) error {
	if status == tenants.DeliveryDelivered {
		dl.Attempts++
	}
	dl.Status, dl.LastAt, dl.LastResult, dl.NextAt = status, &now, result, now
	return d.repo.Update(ctx, dl)
}

// delay is the wait before retry n (1-based): Base, doubling, at most MaxDelay.
func (d *Dispatcher) delay(n int) time.Duration {
	delay := d.cfg.Base
	for i := 1; i < n && delay < d.cfg.MaxDelay; i++ {
		delay *= 2
	}
	return min(delay, d.cfg.MaxDelay)
}

// drainLimit bounds how much of an answer's body is read so that its connection can be kept:
// an endpoint that answers with more is sent the next delivery on a new connection.
const drainLimit = 64 << 10

// send posts the payload with the Standard Webhooks headers and reports the HTTP status (or
// a short error class) and whether it was a 2xx.
func (d *Dispatcher) send(ctx context.Context, ep tenants.Endpoint, dl tenants.Delivery) (string, bool) {
	ts := d.now()
	body := []byte(dl.Payload)
	sig, err := webhook.Sign(ep.Secret, dl.EventID, ts, body)
	if err != nil {
		return "bad secret", false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return "bad url", false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "consentforms-webhooks")
	req.Header.Set("webhook-id", dl.EventID)
	// The same id as Idempotency-Key lets the HTTP client send the delivery again, on a new
	// connection, when a kept connection turns out closed before any answer (the endpoint's
	// keep-alive timeout ran out as the delivery arrived): without it, a POST is never resent,
	// and the attempt counted as failed waits for its retry.
	req.Header.Set("Idempotency-Key", dl.EventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := d.client.Do(req)
	switch {
	case errors.Is(err, webhook.ErrRefusedAddress):
		return "refused address", false
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", false
	case err != nil:
		return "connection failed", false
	}
	// The answer's body is read (up to drainLimit) before it is closed: closed unread, the
	// connection could not carry the next delivery, and every delivery to an endpoint that
	// answers with a body ("ok", a JSON receipt) would open a connection, and a TLS session,
	// of its own.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	_ = resp.Body.Close()
	return strconv.Itoa(resp.StatusCode), resp.StatusCode >= 200 && resp.StatusCode < 300
}
