package admin

import (
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// The UI's copies of the scopes and retention bases agree with the domain.
func TestMirroredRightsNames(t *testing.T) {
	var scopes []string
	for _, o := range web.ScopeOptions() {
		scopes = append(scopes, o.Value)
	}
	if !slices.Equal(scopes, tenants.AllScopes()) {
		t.Errorf("web scopes %v, domain %v", scopes, tenants.AllScopes())
	}
	var froms []string
	for _, o := range web.RetentionFromOptions() {
		froms = append(froms, o.Value)
	}
	if !slices.Equal(froms, tenants.RetentionFroms()) {
		t.Errorf("web retention bases %v, domain %v", froms, tenants.RetentionFroms())
	}
}

func TestRetentionErrors(t *testing.T) {
	for _, c := range []struct {
		retention, from string
		bad             []string
	}{
		{"", "", nil},
		{"2y", "", nil},
		{"P2Y", "consents-lapsed", nil},
		{"30s", "created", nil},
		{"soon", "", []string{"retention"}},
		{"0d", "", []string{"retention"}},
		{"2y", "birth", []string{"retention_from"}},
	} {
		errs := web.FieldErrors{}
		retentionErrors(c.retention, c.from, errs)
		var got []string
		for k := range errs {
			got = append(got, k)
		}
		if !slices.Equal(got, c.bad) {
			t.Errorf("%q from %q: errors %v, want %v", c.retention, c.from, got, c.bad)
		}
	}
}
