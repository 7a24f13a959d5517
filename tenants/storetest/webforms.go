package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var webFormTests = map[string]func(t *testing.T, open Open){
	"publishable keys": testPublishableKeys,
	"spent challenges": testSpentChallenges,
	"hosted page form": testHostedPageForm,
}

// testHostedPageForm: a form's page fields (label, required, help, options) and its consents'
// durations are read back after insert and save.
func testHostedPageForm(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	f := tenants.Form{TenantID: "a", FormID: "f", Name: "F", Open: true, CreatedAt: t0, UpdatedAt: t0, PrimaryFor: "1y",
		Fields: []tenants.FieldDef{{Name: "region", Type: tenants.FieldSelect, Label: "Region", Required: true, Help: "Where", Options: []string{"N", "S"}}}}
	must(t, s.Forms.Insert(ctx, f))
	got, err := s.Forms.Get(ctx, "a", "f")
	must(t, err)
	if got.PrimaryFor != "1y" || got.ContactFor != "" || len(got.Fields) != 1 || got.Fields[0].Label != "Region" || !got.Fields[0].Required ||
		got.Fields[0].Help != "Where" || !slices.Equal(got.Fields[0].Options, []string{"N", "S"}) {
		t.Errorf("Get = %+v", got)
	}
	got.ContactFor = "P2Y"
	must(t, s.Forms.Save(ctx, got))
	if again, _ := s.Forms.Get(ctx, "a", "f"); again.ContactFor != "P2Y" || again.PrimaryFor != "1y" {
		t.Errorf("after Save = %+v", again)
	}
}

// testPublishableKeys: a publishable key's flag, forms and origins are read back by Lookup,
// Get and List; a secret key reads back with none.
func testPublishableKeys(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	pk := tenants.APIKey{ID: "pk1", TenantID: "a", Name: "site", Hash: "h", Scopes: []string{tenants.ScopeSubmissionsWrite},
		CreatedAt: t0, Publishable: true, Forms: []string{"f1", "f2"}, Origins: []string{"https://a.example", "https://b.example"}}
	sk := tenants.APIKey{ID: "sk1", TenantID: "a", Name: "server", Hash: "h2", Scopes: []string{"all"}, CreatedAt: t0.Add(sec(1))}
	must(t, s.APIKeys.Insert(ctx, pk))
	must(t, s.APIKeys.Insert(ctx, sk))
	check := func(what string, got tenants.APIKey, want tenants.APIKey) {
		t.Helper()
		if got.Publishable != want.Publishable || !slices.Equal(got.Forms, want.Forms) || !slices.Equal(got.Origins, want.Origins) {
			t.Errorf("%s = publishable %v forms %q origins %q; want %v %q %q", what, got.Publishable, got.Forms, got.Origins,
				want.Publishable, want.Forms, want.Origins)
		}
	}
	got, err := s.APIKeys.Lookup(ctx, "pk1")
	must(t, err)
	check("Lookup(pk1)", got, pk)
	got, err = s.APIKeys.Get(ctx, "a", "sk1")
	must(t, err)
	check("Get(sk1)", got, sk)
	list, err := s.APIKeys.List(ctx, "a")
	if err != nil || len(list) != 2 {
		t.Fatalf("List(a) = %+v, %v", list, err)
	}
	check("List(a)[1]", list[1], pk)
	for origin, want := range map[string]bool{"https://a.example": true, "https://b.example": true, "https://c.example": false, "": false} {
		if got, err := s.APIKeys.OriginAllowed(ctx, origin, t0); err != nil || got != want {
			t.Errorf("OriginAllowed(%q) = %v, %v; want %v", origin, got, err, want)
		}
	}
	// An expired publishable key allows nothing; nor does a revoked one.
	must(t, s.APIKeys.Insert(ctx, tenants.APIKey{ID: "pk2", TenantID: "b", Name: "old", Hash: "h3", Scopes: []string{tenants.ScopeSubmissionsWrite},
		CreatedAt: t0, ExpiresAt: ptr(t0.Add(sec(60))), Publishable: true, Forms: []string{"f"}, Origins: []string{"https://old.example"}}))
	if got, _ := s.APIKeys.OriginAllowed(ctx, "https://old.example", t0.Add(sec(30))); !got {
		t.Error("a usable key's origin is not allowed")
	}
	if got, _ := s.APIKeys.OriginAllowed(ctx, "https://old.example", t0.Add(sec(61))); got {
		t.Error("an expired key's origin is allowed")
	}
	must(t, s.APIKeys.Revoke(ctx, "a", "pk1", t0.Add(sec(5))))
	if got, _ := s.APIKeys.OriginAllowed(ctx, "https://a.example", t0.Add(sec(6))); got {
		t.Error("a revoked key's origin is allowed")
	}
	if got, _ := s.APIKeys.Lookup(ctx, "pk1"); got.RevokedAt == nil {
		t.Errorf("a publishable key is revoked like any key: %+v", got)
	}
}

// testSpentChallenges: a challenge is spent once per tenant until it expires; another tenant's
// spend of the same challenge is its own; an expired one is dropped and may be spent again.
func testSpentChallenges(t *testing.T, open Open) {
	s := open(t)
	exp := t0.Add(5 * time.Minute)
	must(t, s.Challenges.Spend(ctx, "a", "c1", exp, t0))
	if err := s.Challenges.Spend(ctx, "a", "c1", exp, t0.Add(sec(1))); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("c1 spent twice: %v, want ErrConflict", err)
	}
	must(t, s.Challenges.Spend(ctx, "b", "c1", exp, t0))
	must(t, s.Challenges.Spend(ctx, "a", "c2", exp, t0))
	// After the expiry the rows are dropped: spending c1 again is accepted (the signature's
	// own expiry refuses such a solution before it gets here).
	must(t, s.Challenges.Spend(ctx, "a", "c3", t0.Add(20*time.Minute), exp.Add(sec(1))))
	must(t, s.Challenges.Spend(ctx, "a", "c1", t0.Add(20*time.Minute), exp.Add(sec(2))))
	if err := s.Challenges.Spend(ctx, "b", "c1", exp, t0.Add(sec(3))); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("b's c1 spent twice: %v, want ErrConflict", err)
	}
}
