package links

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var (
	key    = []byte("0123456789abcdef0123456789abcdef")
	expiry = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
)

func TestSignParse(t *testing.T) {
	s := NewSigner(key)
	for _, c := range []Claims{
		{Kind: KindConfirm, TenantID: "t_a", Record: tenants.KindFormSubmission, PublicID: "sub:1.x-y", Consent: tenants.ConsentGeneralContactEmail, Expires: expiry},
		{Kind: KindWithdraw, TenantID: "t_b", Record: tenants.KindCanvassing, PublicID: "c_1"},
	} {
		got, err := s.Parse(s.Sign(c))
		if err != nil || got != c {
			t.Errorf("Parse(Sign(%+v)) = %+v, %v", c, got, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	s := NewSigner(key)
	good := s.Sign(Claims{Kind: KindConfirm, TenantID: "t_a", Record: tenants.KindFormSubmission, PublicID: "s1",
		Consent: tenants.ConsentGeneralContactEmail, Expires: expiry})
	body, sig, _ := strings.Cut(good, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	readdress := func(from, to string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), from, to, 1))) + "." + sig
	}
	for name, tok := range map[string]string{
		"empty":                 "",
		"no signature":          body,
		"bad base64":            "!!!." + sig,
		"signature flipped":     body + "." + strings.ToUpper(sig[:1]) + strings.ToLower(sig[1:]),
		"another tenant":        readdress("t_a", "t_b"),
		"another record":        readdress("|s1|", "|s2|"),
		"another consent":       readdress("generalContactEmail", "generalContactPhone"),
		"later expiry":          readdress("|"+expiryB36()+"", "|zzzzzz"),
		"another server's key":  NewSigner([]byte("another key, just as long as it...")).Sign(Claims{Kind: KindWithdraw, TenantID: "t_a", Record: tenants.KindFormSubmission, PublicID: "s1"}),
		"unknown kind":          signRaw(s, "x|t_a|formSubmission|s1"),
		"withdraw, extra field": signRaw(s, "w|t_a|formSubmission|s1|more"),
		"confirm, bad expiry":   signRaw(s, "c|t_a|formSubmission|s1|generalContactEmail|??"),
	} {
		if _, err := s.Parse(tok); err == nil {
			t.Errorf("%s: Parse(%q) accepted", name, tok)
		}
	}
}

func expiryB36() string { return strconv.FormatInt(expiry.Unix(), 36) }

func signRaw(s *Signer, body string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(body)) + "." + base64.RawURLEncoding.EncodeToString(s.mac([]byte(body)))
}

// TestLinksNoPersonalData: a record's links hold its ids, never its contact data, and their
// base is the public URL alone.
func TestLinksNoPersonalData(t *testing.T) {
	email, phone := "ada@example.org", "+447700900123"
	rec := tenants.Record{TenantID: "t_a", Kind: tenants.KindFormSubmission, PublicID: "s1",
		Contact: tenants.Contact{Email: &email, PhoneNumber: &phone}}
	rec.Consents.GeneralContactEmail = tenants.Consent{Status: tenants.StatusPending, ConfirmBy: &expiry}
	l := &Links{Signer: NewSigner(key), PublicURL: "https://forms.example.org/"}
	ctx := context.Background()
	for _, u := range []string{l.ConfirmURL(ctx, rec, tenants.ConsentGeneralContactEmail), l.WithdrawURL(ctx, rec, expiry.Add(-time.Hour))} {
		tok := u[strings.LastIndex(u, "/")+1:]
		body, _, _ := strings.Cut(tok, ".")
		raw, _ := base64.RawURLEncoding.DecodeString(body)
		if !strings.HasPrefix(u, "https://forms.example.org/") || strings.Contains(u, ".org//") || strings.Contains(string(raw), "ada") || strings.Contains(string(raw), "7700900123") {
			t.Errorf("link %q (%q)", u, raw)
		}
	}
	if u := (&Links{Signer: NewSigner(key)}).WithdrawURL(context.Background(), rec, expiry.Add(-time.Hour)); !strings.HasPrefix(u, "/w/") {
		t.Errorf("without any base: %q", u)
	}
	rec.Consents.GeneralContactEmail = tenants.Consent{Status: tenants.StatusNotGranted}
	if u := l.WithdrawURL(ctx, rec, expiry.Add(-time.Hour)); u != "" {
		t.Errorf("a record whose general contact was never given has withdrawal link %q", u)
	}
	if a, b := ID("tok1"), ID("tok2"); a == b || len(a) != 32 || strings.Contains(a, "tok") {
		t.Errorf("ID = %q, %q", a, b)
	}
}
