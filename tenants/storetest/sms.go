package storetest

import (
	"errors"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var smsTests = map[string]func(t *testing.T, open Open){
	"secrets are set, replaced and kept per tenant": testSMSSecrets,
	"message ids are remembered across tenants":     testSMSMessages,
	"sending numbers are kept per tenant":           testSMSNumbers,
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
	if !seen("b", "twilio", "SM1") {
		t.Error("a message applied for tenant a is not seen at tenant b: it would apply twice")
	}
	if seen("a", "telnyx", "SM1") || seen("a", "twilio", "SM2") {
		t.Error("a message id is seen for another provider or id")
	}
}

func testSMSNumbers(t *testing.T, open Open) {
	s := open(t)
	numbers := func(tenant string) []string {
		t.Helper()
		list, err := s.SMS.Numbers(ctx, tenant)
		must(t, err)
		var out []string
		for _, n := range list {
			if n.TenantID != tenant {
				t.Errorf("Numbers(%s) holds %+v", tenant, n)
			}
			out = append(out, n.Number)
		}
		return out
	}
	if got := numbers("a"); len(got) != 0 {
		t.Fatalf("numbers before any was added: %q", got)
	}
	for i, n := range []tenants.SMSNumber{{TenantID: "a", Number: "+4915112345678", AddedAt: t0.Add(sec(2))},
		{TenantID: "a", Number: "+14155550100", AddedAt: t0.Add(sec(1))}, {TenantID: "b", Number: "+4915112345678", AddedAt: t0}} {
		added, err := s.SMS.AddNumber(ctx, n)
		if err != nil || !added {
			t.Fatalf("AddNumber %d = %v, %v", i, added, err)
		}
	}
	if added, err := s.SMS.AddNumber(ctx, tenants.SMSNumber{TenantID: "a", Number: "+14155550100", AddedAt: t0.Add(sec(9))}); err != nil || added {
		t.Errorf("adding a number again = %v, %v; want false, nil", added, err)
	}
	list, err := s.SMS.Numbers(ctx, "a")
	must(t, err)
	if len(list) != 2 || list[0] != (tenants.SMSNumber{TenantID: "a", Number: "+14155550100", AddedAt: t0.Add(sec(1))}) || list[1].Number != "+4915112345678" {
		t.Errorf("Numbers(a) = %+v, want +14155550100 then +4915112345678, in the order added", list)
	}
	if got := numbers("b"); len(got) != 1 || got[0] != "+4915112345678" {
		t.Errorf("Numbers(b) = %q", got)
	}
	must(t, s.SMS.RemoveNumber(ctx, "a", "+4915112345678"))
	if err := s.SMS.RemoveNumber(ctx, "a", "+4915112345678"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("removing it again: %v, want ErrNotFound", err)
	}
	if err := s.SMS.RemoveNumber(ctx, "c", "+14155550100"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("removing another tenant's number: %v, want ErrNotFound", err)
	}
	if got := numbers("a"); len(got) != 1 || got[0] != "+14155550100" {
		t.Errorf("Numbers(a) after the removal = %q", got)
	}
	if got := numbers("b"); len(got) != 1 {
		t.Errorf("removing a's number removed b's: %q", got)
	}
}
