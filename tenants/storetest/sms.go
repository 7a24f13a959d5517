package storetest

import (
	"errors"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var smsTests = map[string]func(t *testing.T, open Open){
	"secrets are set, replaced and kept per tenant": testSMSSecrets,
	"message ids are remembered per tenant":         testSMSMessages,
}

func testSMSSecrets(t *testing.T, open Open) {
	s := open(t)
	if _, err := s.SMS.Secret(ctx, "a", "twilio"); !errors.Is(err, tenants.ErrNotFound) {
		t.Fatalf("Secret before any = %v, want ErrNotFound", err)
	}
	must(t, s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: "a", Provider: "twilio", Sealed: "v1.1.old", SetAt: t0}))
	must(t, s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: "a", Provider: "twilio", Sealed: "v1.1.new", SetAt: t0.Add(sec(5))}))
	must(t, s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: "a", Provider: "telnyx", Sealed: "v1.1.tx", SetAt: t0}))
	must(t, s.SMS.SetSecret(ctx, tenants.SMSSecret{TenantID: "b", Provider: "twilio", Sealed: "v1.1.b", SetAt: t0}))
	got, err := s.SMS.Secret(ctx, "a", "twilio")
	must(t, err)
	if got != (tenants.SMSSecret{TenantID: "a", Provider: "twilio", Sealed: "v1.1.new", SetAt: t0.Add(sec(5))}) {
		t.Errorf("Secret = %+v, want the replacement", got)
	}
	if _, err := s.SMS.Secret(ctx, "b", "telnyx"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant's provider: %v, want ErrNotFound", err)
	}
	list, err := s.SMS.Secrets(ctx, "a")
	must(t, err)
	if len(list) != 2 || list[0].Provider != "telnyx" || list[1].Provider != "twilio" {
		t.Errorf("Secrets(a) = %+v, want telnyx and twilio", list)
	}
	all, err := s.SMS.AllSecrets(ctx)
	must(t, err)
	if len(all) != 3 {
		t.Errorf("AllSecrets = %+v, want 3", all)
	}
}

func testSMSMessages(t *testing.T, open Open) {
	s := open(t)
	seen := func(tenant, provider, id string) bool {
		ok, err := s.SMS.MessageSeen(ctx, tenant, provider, id)
		must(t, err)
		return ok
	}
	if seen("a", "twilio", "SM1") {
		t.Fatal("a message is seen before it was remembered")
	}
	must(t, s.SMS.RememberMessage(ctx, "a", "twilio", "SM1", t0))
	must(t, s.SMS.RememberMessage(ctx, "a", "twilio", "SM1", t0.Add(sec(1))))
	if !seen("a", "twilio", "SM1") {
		t.Error("a remembered message is not seen")
	}
	if seen("b", "twilio", "SM1") || seen("a", "telnyx", "SM1") {
		t.Error("a message id is seen for another tenant or provider")
	}
}
