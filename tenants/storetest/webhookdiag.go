package storetest

import (
	"fmt"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var webhookDiagTests = map[string]func(t *testing.T, open Open){
	"keeps the latest and adds the counts": testWebhookDiagMerge,
	"drops days before the window":         testWebhookDiagWindow,
}

func testWebhookDiagMerge(t *testing.T, open Open) {
	s := open(t)
	must(t, s.WebhookDiag.Add(ctx, []tenants.WebhookDelta{
		{TenantID: "a", Provider: "sendgrid", Day: "2026-11-21", LastDelivery: t0.Add(sec(10)), LastEvents: 3, LastUnsubscribed: 2, Accepted: 4},
		{TenantID: "a", Provider: "mailchimp", Day: "2026-11-21", LastRefusal: t0, LastReason: tenants.RefusedUnknownToken, Refused: 1},
		{TenantID: "b", Provider: "sendgrid", Day: "2026-11-21", Accepted: 9, LastDelivery: t0},
	}, "2026-10-23"))
	// An older delivery written later (another instance) does not replace the newer one.
	must(t, s.WebhookDiag.Add(ctx, []tenants.WebhookDelta{
		{TenantID: "a", Provider: "sendgrid", Day: "2026-11-21", LastDelivery: t0, LastEvents: 1, Accepted: 1,
			LastRefusal: t0.Add(sec(5)), LastReason: tenants.RefusedBadSignature, Refused: 2},
		{TenantID: "a", Provider: "sendgrid", Day: "2026-11-22", Refused: 1, LastRefusal: t0.Add(sec(86400)), LastReason: tenants.RefusedStaleTimestamp},
	}, "2026-10-23"))
	got, err := s.WebhookDiag.Stats(ctx, "a", "2026-10-23")
	must(t, err)
	if len(got) != 2 || got[0].Provider != "mailchimp" || got[1].Provider != "sendgrid" {
		t.Fatalf("stats = %+v, want mailchimp and sendgrid", got)
	}
	mc, sg := got[0], got[1]
	if !mc.LastDelivery.IsZero() || !mc.LastRefusal.Equal(t0) || mc.LastReason != tenants.RefusedUnknownToken ||
		fmt.Sprint(mc.Days) != "[{2026-11-21 0 1}]" {
		t.Errorf("mailchimp = %+v", mc)
	}
	if !sg.LastDelivery.Equal(t0.Add(sec(10))) || sg.LastEvents != 3 || sg.LastUnsubscribed != 2 ||
		!sg.LastRefusal.Equal(t0.Add(sec(86400))) || sg.LastReason != tenants.RefusedStaleTimestamp ||
		fmt.Sprint(sg.Days) != "[{2026-11-22 0 1} {2026-11-21 5 2}]" {
		t.Errorf("sendgrid = %+v", sg)
	}
	if other, err := s.WebhookDiag.Stats(ctx, "c", "2026-10-23"); err != nil || len(other) != 0 {
		t.Errorf("a tenant without deliveries: %+v, %v", other, err)
	}
}

func testWebhookDiagWindow(t *testing.T, open Open) {
	s := open(t)
	must(t, s.WebhookDiag.Add(ctx, []tenants.WebhookDelta{{TenantID: "a", Provider: "brevo", Day: "2026-10-01", Accepted: 1, LastDelivery: t0}}, "2026-09-01"))
	must(t, s.WebhookDiag.Add(ctx, []tenants.WebhookDelta{{TenantID: "a", Provider: "brevo", Day: "2026-11-21", Accepted: 2, LastDelivery: t0}}, "2026-10-23"))
	got, err := s.WebhookDiag.Stats(ctx, "a", "2026-09-01")
	must(t, err)
	if len(got) != 1 || fmt.Sprint(got[0].Days) != "[{2026-11-21 2 0}]" {
		t.Fatalf("stats = %+v, want only the day within the window", got)
	}
}
