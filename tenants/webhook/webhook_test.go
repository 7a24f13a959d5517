package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

func TestCheckURL(t *testing.T) {
	strict, insecure := Policy{}, Policy{AllowInsecure: true}
	for _, c := range []struct {
		url          string
		strict, test bool
	}{
		{"https://crm.example.org/hook", true, true},
		{"https://93.184.216.34/hook", true, true},
		{"http://crm.example.org/hook", false, true},
		{"http://127.0.0.1:8080/hook", false, true},
		{"https://127.0.0.1/hook", false, true},
		{"https://10.0.0.7/", false, true},
		{"https://192.168.1.1/", false, true},
		{"https://172.16.0.1/", false, true},
		{"https://100.64.0.1/", false, true},
		{"https://169.254.169.254/latest/meta-data", false, true},
		{"https://[::1]/", false, true},
		{"https://[fe80::1]/", false, true},
		{"https://[fd00::1]/", false, true},
		{"https://[::ffff:127.0.0.1]/", false, true},
		{"https://0.0.0.0/", false, true},
		{"ftp://crm.example.org/", false, false},
		{"https://user:pw@crm.example.org/", false, false},
		{"/relative", false, false},
	} {
		if got := strict.CheckURL(c.url) == nil; got != c.strict {
			t.Errorf("strict CheckURL(%s) ok = %v, want %v", c.url, got, c.strict)
		}
		if got := insecure.CheckURL(c.url) == nil; got != c.test {
			t.Errorf("insecure CheckURL(%s) ok = %v, want %v", c.url, got, c.test)
		}
	}
}

// TestDialerRefusesPrivate: a public-looking name that resolves to loopback is refused when
// connecting, not only when registering.
func TestDialerRefusesPrivate(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := (Policy{}).Dialer().DialContext(context.Background(), "tcp", ln.Addr().String()); !errors.Is(err, ErrRefusedAddress) {
		t.Errorf("strict dial to loopback = %v, want refused", err)
	}
	conn, err := (Policy{AllowInsecure: true}).Dialer().DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("insecure dial to loopback = %v", err)
	}
	conn.Close()
}

// TestSign follows the Standard Webhooks example: its secret, id, timestamp and body give its
// signature.
func TestSign(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"test": 2432232314}`)
	ts := time.Unix(1614265330, 0)
	got, err := Sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", ts, body)
	if err != nil || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("Sign = %q, %v", got, err)
	}
	now := ts.Add(time.Minute)
	if err := Verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,bogus "+got, body, now, 5*time.Minute); err != nil {
		t.Errorf("Verify with a second signature: %v", err)
	}
	if Verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", got, []byte(`{"test": 1}`), now, 5*time.Minute) == nil {
		t.Error("a changed body verified")
	}
	if Verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", got, body, ts.Add(time.Hour), 5*time.Minute) == nil {
		t.Error("a stale timestamp verified")
	}
	if s := NewSecret(); !strings.HasPrefix(s, "whsec_") || s == NewSecret() {
		t.Errorf("NewSecret = %q", s)
	}
}

func TestParseEvents(t *testing.T) {
	if got, err := ParseEvents("record.anonymised, consent.granted,consent.granted"); err != nil ||
		strings.Join(got, ",") != "consent.granted,record.anonymised" {
		t.Errorf("ParseEvents = %v, %v", got, err)
	}
	if got, _ := ParseEvents("all"); len(got) != len(tenants.EventTypes()) {
		t.Errorf("all = %v", got)
	}
	for _, bad := range []string{"", "consent.changed", " , "} {
		if _, err := ParseEvents(bad); err == nil {
			t.Errorf("ParseEvents(%q) accepted", bad)
		}
	}
}

// TestPayloadsCarryNoPersonalData: every event builder leaves out contact details.
func TestPayloadsCarryNoPersonalData(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	email, phone, name := "jane@example.org", "+447700900123", "Jane Doe"
	rec := tenants.Record{ID: "r1", TenantID: "t1", Kind: tenants.KindFormSubmission, PublicID: "s1", FormID: "petition", CreatedAt: now}
	street := "1 High Street"
	rec.Contact.Email, rec.Contact.PhoneNumber, rec.Contact.FirstName, rec.Address.Street = &email, &phone, &name, &street
	rec.Fields = map[string]any{"name": name}
	rec.Consents.PrimaryPurpose = tenants.Consent{Status: tenants.StatusGranted}
	var all []tenants.OutboxEvent
	all = append(all, Granted(rec)...)
	all = append(all, Revoked("c1", now, []tenants.Record{rec})...)
	all = append(all, Anonymised(tenants.EventTypeRecordAnonymised, "c2", now, []tenants.Record{rec})...)
	all = append(all, Expired(now, rec, []string{string(tenants.ConsentPrimaryPurpose)})...)
	if len(all) != 4 {
		t.Fatalf("%d events", len(all))
	}
	for _, e := range all {
		for _, p := range []string{email, phone, name, street, "7700900123"} {
			if strings.Contains(e.Payload, p) {
				t.Errorf("%s carries %q: %s", e.Type, p, e.Payload)
			}
		}
		if !strings.Contains(e.Payload, `"recordId":"s1"`) || !strings.HasPrefix(e.ID, "msg_") {
			t.Errorf("%s: %s %s", e.Type, e.ID, e.Payload)
		}
	}
	if Granted(rec)[0].ID != all[0].ID || Expired(now, rec, []string{"primaryPurpose"})[0].ID != all[3].ID {
		t.Error("granted and expired ids are not deterministic")
	}
}

// BenchmarkGranted is the consent.granted event every new record with a granted consent
// carries to the store (which keeps it only when an endpoint wants it).
func BenchmarkGranted(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	deadline := now.AddDate(1, 0, 0)
	g := tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &now, Deadline: &deadline}
	rec := tenants.Record{ID: "t1:formSubmission:r1", TenantID: "t1", Kind: tenants.KindFormSubmission, PublicID: "r1",
		FormID: "petition", CreatedAt: now, Consents: tenants.Consents{PrimaryPurpose: g, GeneralContactEmail: g, GeneralContactPhone: g}}
	b.ReportAllocs()
	for b.Loop() {
		if len(Granted(rec)) != 1 {
			b.Fatal("no event")
		}
	}
}

// TestWithLinksAsEncoded: the links appended to a payload give the bytes that decoding it,
// setting them and encoding it again give, for every event builder and links with characters
// JSON escapes.
func TestWithLinksAsEncoded(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	deadline := now.AddDate(1, 0, 0)
	rec := tenants.Record{ID: "t1:formSubmission:s<1>", TenantID: "t1", Kind: tenants.KindFormSubmission, PublicID: "s<1>&\"x\"",
		FormID: "petition", CreatedAt: now}
	rec.Consents.PrimaryPurpose = tenants.Consent{Status: tenants.StatusGranted, Deadline: &deadline}
	rec.Consents.GeneralContactEmail = tenants.Consent{Status: tenants.StatusPending}
	call := rec
	call.Kind = tenants.KindPhoneCallTask
	var all []tenants.OutboxEvent
	all = append(all, Granted(rec)...)
	all = append(all, Revoked("c1", now, []tenants.Record{rec, call})...)
	all = append(all, Expired(now, rec, []string{string(tenants.ConsentPrimaryPurpose)})...)
	all = append(all, Confirmed(now, rec, tenants.ConsentGeneralContactEmail))
	links := [][2]string{{"", "https://forms.example.org/w/abc?x=1&y=<2>"}, {"https://forms.example.org/c/é\u2028", ""},
		{"https://a.example/c", "https://a.example/w"}}
	for _, ev := range all {
		for _, l := range links {
			var p payload
			if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil {
				t.Fatal(err)
			}
			p.Data.ConfirmationURL, p.Data.WithdrawURL = l[0], l[1]
			if l[1] != "" {
				p.Data.PreferencesURL = strings.Replace(l[1], "/w/", "/p/", 1)
			}
			want, _ := json.Marshal(p)
			got := WithLinks(ev, l[0], l[1])
			if got.Payload != string(want) || got.ID != ev.ID {
				t.Errorf("%s with %q:\n got %s\nwant %s", ev.Type, l, got.Payload, want)
			}
			if again := WithLinks(got, "https://b.example/c", ""); !strings.Contains(again.Payload, `"confirmationUrl":"https://b.example/c"`) ||
				strings.Count(again.Payload, "confirmationUrl") != 1 {
				t.Errorf("links set twice: %s", again.Payload)
			}
		}
	}
}
