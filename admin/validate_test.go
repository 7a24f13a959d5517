package admin

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/web"
)

func TestValidateForm(t *testing.T) {
	ok := web.FormInput{ID: "newsletter-2026", Name: "Newsletter", Fields: []web.CustomField{{Name: "colour", Type: "text"}}}
	cases := []struct {
		name string
		in   web.FormInput
		keys []string
	}{
		{"valid", ok, nil},
		{"bad id", web.FormInput{ID: "no spaces"}, []string{"form_id"}},
		{"empty id", web.FormInput{}, []string{"form_id"}},
		{"long name", web.FormInput{ID: "a", Name: strings.Repeat("n", 201)}, []string{"name"}},
		{"duplicate field", web.FormInput{ID: "a", Fields: []web.CustomField{{Name: "x", Type: "text"}, {Name: "x", Type: "date"}}},
			[]string{"field.1.name"}},
		{"unknown type", web.FormInput{ID: "a", Fields: []web.CustomField{{Name: "x", Type: "blob"}}}, []string{"field.0.type"}},
		{"control character", web.FormInput{ID: "a", Fields: []web.CustomField{{Name: "x\ny", Type: "text"}}}, []string{"field.0.name"}},
	}
	for _, c := range cases {
		errs := validateForm(c.in)
		var keys []string
		for k := range errs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, c.keys) {
			t.Errorf("%s: errors %v, want keys %v", c.name, errs, c.keys)
		}
	}
}

func TestValidateKey(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	exp, errs := validateKey(web.KeyInput{Name: "Site", Scopes: []string{"submissions:write"}, Expires: "2026-03-14"}, now)
	if len(errs) > 0 || exp == nil || !exp.Equal(time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("same-day expiry: %v %v", exp, errs)
	}
	for name, in := range map[string]web.KeyInput{
		"no name":       {Scopes: []string{"all"}},
		"no scope":      {Name: "x"},
		"unknown scope": {Name: "x", Scopes: []string{"admin"}},
		"past expiry":   {Name: "x", Scopes: []string{"all"}, Expires: "2026-03-13"},
		"bad date":      {Name: "x", Scopes: []string{"all"}, Expires: "14.03.2026"},
	} {
		if _, errs := validateKey(in, now); len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/admin/forms?x=1":        "/admin/forms?x=1",
		"/admin/":                 "/admin/",
		"https://evil.example/":   "",
		"//evil.example/admin/":   "",
		"/admin/\\evil":           "",
		"/api/v1/forms":           "",
		"/admin/login":            "",
		"/admin/choose-tenant?x=": "",
		"":                        "",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAssignableRoles(t *testing.T) {
	if got := assignableRoles("tenant_admin"); !slices.Equal(got, []string{"tenant_admin", "support", "viewer"}) {
		t.Errorf("tenant admin may assign %v", got)
	}
	if got := assignableRoles("platform_admin"); len(got) != 4 {
		t.Errorf("platform admin may assign %v", got)
	}
	if got := assignableRoles("nobody"); got != nil {
		t.Errorf("unknown role may assign %v", got)
	}
}

func TestCSVSafe(t *testing.T) {
	for in, want := range map[string]string{"=cmd()": "'=cmd()", "+1": "'+1", "-x": "'-x", "@a": "'@a", "staff:u1": "staff:u1", "": ""} {
		if got := csvSafe(in); got != want {
			t.Errorf("csvSafe(%q) = %q", in, got)
		}
	}
}

func TestPersonalField(t *testing.T) {
	declared := map[string]bool{"shoe_size": true}
	for _, c := range []struct {
		key  string
		v    any
		want bool
	}{
		{"shoe_size", float64(42), true},
		{"favourite_colour", "green", false},
		{"notes", "mail me at a@example.org", true},
		{"backup", "+49 151 12345678", true},
		{"email_2", "x", true},
		{"count", float64(3), false},
		{"nested", map[string]any{"a": "b"}, true},
	} {
		if got := personalField(declared, c.key, c.v); got != c.want {
			t.Errorf("personalField(%q, %v) = %v", c.key, c.v, got)
		}
	}
}
