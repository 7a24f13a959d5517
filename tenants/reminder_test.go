package tenants

import (
	"testing"
	"time"
)

// TestDeliveriesToReminder: a confirmation request carrying remindAt makes the mail endpoint a
// second delivery, due then, of the reminder type; a webhook endpoint gets the event once, and
// an event without remindAt makes no reminder.
func TestDeliveriesToReminder(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := now.Add(84 * time.Hour)
	mail := Endpoint{ID: "we_mail", TenantID: "t", URL: MailEndpointURL, Events: MailEvents(), CreatedAt: now.Add(-time.Hour)}
	hook := Endpoint{ID: "we_hook", TenantID: "t", URL: "https://hooks.example.org/in", Events: EventTypes(), CreatedAt: now.Add(-time.Hour)}
	ev := OutboxEvent{ID: "msg_1", TenantID: "t", Type: EventTypeConfirmationRequested, Time: now,
		Payload: `{"type":"consent.confirmation_requested","data":{"recordId":"r1","confirmationUrl":"https://x/c/1","remindAt":"` + at.Format(time.RFC3339) + `"}}`}
	got := ev.DeliveriesTo([]Endpoint{mail, hook})
	if len(got) != 3 {
		t.Fatalf("%d deliveries, want the confirmation to each endpoint and the mail endpoint's reminder: %+v", len(got), got)
	}
	r := got[1]
	if r.EndpointID != "we_mail" || r.Type != EventTypeConfirmationReminder || !r.NextAt.Equal(at) || !r.CreatedAt.Equal(at) ||
		r.EventID != "msg_1-reminder" || r.Payload != ev.Payload {
		t.Errorf("the reminder delivery: %+v", r)
	}
	if got[0].Type != EventTypeConfirmationRequested || !got[0].NextAt.Equal(now) || got[2].EndpointID != "we_hook" {
		t.Errorf("the confirmation deliveries: %+v", got)
	}
	ev.Payload = `{"type":"consent.confirmation_requested","data":{"recordId":"r1"}}`
	if n := len(ev.DeliveriesTo([]Endpoint{mail})); n != 1 {
		t.Errorf("without remindAt: %d deliveries", n)
	}
}
