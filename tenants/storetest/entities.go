package storetest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var entityTests = map[string]func(t *testing.T, open Open){
	"tenants":                    testTenants,
	"api keys":                   testAPIKeys,
	"forms":                      testForms,
	"staff":                      testStaff,
	"webhook tokens":             testTokens,
	"webhook token name and use": testTokenUse,
}

func tenant(id string, offset int) tenants.Tenant {
	return tenants.Tenant{ID: id, Name: "Org " + id, Status: tenants.TenantActive, RateLimit: 100, CreatedAt: t0.Add(sec(offset))}
}

// twoTenants stores tenants a and b.
func twoTenants(t *testing.T, s tenants.Stores) {
	t.Helper()
	for i, id := range []string{"a", "b"} {
		if err := s.Tenants.Insert(ctx, tenant(id, i)); err != nil {
			t.Fatal(err)
		}
	}
}

func testTenants(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	if err := s.Tenants.Insert(ctx, tenant("a", 5)); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a second tenant a: %v, want ErrConflict", err)
	}
	if _, err := s.Tenants.Get(ctx, "c"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("unknown tenant: %v, want ErrNotFound", err)
	}
	must(t, s.Tenants.SetRateLimit(ctx, "a", 7))
	must(t, s.Tenants.SetStatus(ctx, "a", tenants.TenantSuspended))
	must(t, s.Tenants.SetSendGridKey(ctx, "a", "MFkw"))
	must(t, s.Tenants.SetDefaultCountry(ctx, "a", "DE"))
	must(t, s.Tenants.SetSMSStopWords(ctx, "a", []string{"alto", "nicht mehr"}))
	identity := tenants.Identity{LegalName: "Friends of the Forest e.V.", ContactEmail: "privacy@forest.example",
		Address: "Waldweg 1, 10115 Berlin", PrivacyURL: "https://forest.example/privacy", Jurisdiction: "DE"}
	must(t, s.Tenants.SetIdentity(ctx, "a", identity))
	got, err := s.Tenants.Get(ctx, "a")
	want := tenant("a", 0)
	want.RateLimit, want.Status, want.SendGridPublicKey, want.DefaultCountry = 7, tenants.TenantSuspended, "MFkw", "DE"
	want.SMSStopWords, want.Identity = []string{"alto", "nicht mehr"}, identity
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Get(a) = %+v, %v; want %+v", got, err, want)
	}
	must(t, s.Tenants.SetSMSStopWords(ctx, "a", nil))
	must(t, s.Tenants.SetIdentity(ctx, "a", tenants.Identity{}))
	if got, err := s.Tenants.Get(ctx, "a"); err != nil || len(got.SMSStopWords) != 0 || got.Identity != (tenants.Identity{}) {
		t.Errorf("stop words and identity after clearing them = %q %+v, %v", got.SMSStopWords, got.Identity, err)
	}
	if b, _ := s.Tenants.Get(ctx, "b"); !reflect.DeepEqual(b, tenant("b", 1)) {
		t.Errorf("changing a changed b: %+v", b)
	}
	for _, set := range []error{s.Tenants.SetRateLimit(ctx, "c", 1), s.Tenants.SetStatus(ctx, "c", "active"), s.Tenants.SetSendGridKey(ctx, "c", ""),
		s.Tenants.SetDefaultCountry(ctx, "c", "DE"), s.Tenants.SetSMSStopWords(ctx, "c", []string{"alto"}),
		s.Tenants.SetIdentity(ctx, "c", tenants.Identity{LegalName: "x"})} {
		if !errors.Is(set, tenants.ErrNotFound) {
			t.Errorf("changing an unknown tenant: %v, want ErrNotFound", set)
		}
	}
	list, err := s.Tenants.List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != "b" || list[1].ID != "a" {
		t.Errorf("List = %+v, %v; want b, a (newest first)", list, err)
	}
}

func testAPIKeys(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	key := func(tenant, id string, offset int) tenants.APIKey {
		return tenants.APIKey{ID: id, TenantID: tenant, Name: "key " + id, Hash: "h" + id, Scopes: []string{"all"},
			CreatedAt: t0.Add(sec(offset)), ExpiresAt: ptr(t0.Add(sec(3600)))}
	}
	for i, k := range []tenants.APIKey{key("a", "k1", 0), key("a", "k2", 1), key("b", "k3", 2)} {
		if err := s.APIKeys.Insert(ctx, k); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	if err := s.APIKeys.Insert(ctx, key("b", "k1", 3)); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a second key k1: %v, want ErrConflict", err)
	}
	got, err := s.APIKeys.Lookup(ctx, "k3")
	if err != nil || got.TenantID != "b" || got.Scopes[0] != "all" || !got.ExpiresAt.Equal(t0.Add(sec(3600))) || got.RevokedAt != nil {
		t.Errorf("Lookup(k3) = %+v, %v", got, err)
	}
	if _, err := s.APIKeys.Get(ctx, "a", "k3"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("tenant a reads b's key: %v, want ErrNotFound", err)
	}
	if err := s.APIKeys.Revoke(ctx, "a", "k3", t0); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("tenant a revokes b's key: %v, want ErrNotFound", err)
	}
	must(t, s.APIKeys.Revoke(ctx, "a", "k1", t0.Add(sec(10))))
	must(t, s.APIKeys.Touch(ctx, "k2", t0.Add(sec(20))))
	list, err := s.APIKeys.List(ctx, "a")
	if err != nil || len(list) != 2 || list[0].ID != "k2" || list[1].ID != "k1" {
		t.Fatalf("List(a) = %+v, %v; want k2, k1", list, err)
	}
	if list[1].RevokedAt == nil || !list[1].RevokedAt.Equal(t0.Add(sec(10))) || list[0].LastUsedAt == nil {
		t.Errorf("revoked and touched: %+v", list)
	}
	if k3, _ := s.APIKeys.Get(ctx, "b", "k3"); k3.RevokedAt != nil {
		t.Errorf("b's key changed: %+v", k3)
	}
}

func testForms(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	form := func(tenant, id string) tenants.Form {
		return tenants.Form{TenantID: tenant, FormID: id, Name: "Form " + id, Open: true, CreatedAt: t0, UpdatedAt: t0,
			Fields: []tenants.FieldDef{{Name: "shoe_size", Type: "number"}, {Name: "nickname", Type: "text", Personal: true}}}
	}
	for _, f := range []tenants.Form{form("a", "z"), form("a", "petition"), form("b", "petition")} {
		must(t, s.Forms.Insert(ctx, f))
	}
	if err := s.Forms.Insert(ctx, form("a", "petition")); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a second form petition: %v, want ErrConflict", err)
	}
	f := form("a", "petition")
	f.Open, f.Name, f.UpdatedAt = false, "Closed", t0.Add(sec(5))
	must(t, s.Forms.Save(ctx, f))
	got, err := s.Forms.Get(ctx, "a", "petition")
	if err != nil || got.Open || got.Name != "Closed" || !got.UpdatedAt.Equal(t0.Add(sec(5))) || len(got.Fields) != 2 ||
		!got.Fields[1].Personal || !got.PersonalFields()["nickname"] {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if b, _ := s.Forms.Get(ctx, "b", "petition"); !b.Open {
		t.Errorf("saving a's form changed b's: %+v", b)
	}
	if _, err := s.Forms.Get(ctx, "b", "z"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("b reads a's form: %v, want ErrNotFound", err)
	}
	if err := s.Forms.Save(ctx, form("b", "z")); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("saving an unknown form: %v, want ErrNotFound", err)
	}
	list, err := s.Forms.List(ctx, "a")
	if err != nil || len(list) != 2 || list[0].FormID != "petition" || list[1].FormID != "z" {
		t.Errorf("List(a) = %+v, %v; want petition, z", list, err)
	}
}

func testStaff(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	user := func(id, email, role, tenant string, offset int) tenants.Staff {
		return tenants.Staff{ID: id, Email: email, PasswordHash: "$2a$" + id, Role: role, TenantID: tenant, CreatedAt: t0.Add(sec(offset))}
	}
	for _, u := range []tenants.Staff{user("u1", "root@example.org", tenants.RolePlatformAdmin, "", 0),
		user("u2", " Ada@Example.org ", tenants.RoleViewer, "a", 1), user("u3", "bo@example.org", tenants.RoleSupport, "b", 2)} {
		if u.ID == "u3" {
			u.CreatedBy = "u1"
		}
		must(t, s.Staff.Insert(ctx, u))
	}
	if err := s.Staff.Insert(ctx, user("u4", "ADA@example.org", tenants.RoleViewer, "b", 3)); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("an e-mail in use, in other case: %v, want ErrConflict", err)
	}
	got, err := s.Staff.ByEmail(ctx, "ada@EXAMPLE.org")
	if err != nil || got.ID != "u2" || got.Email != "ada@example.org" || got.PasswordHash != "$2a$u2" {
		t.Errorf("ByEmail = %+v, %v", got, err)
	}
	if got.CreatedBy != "" {
		t.Errorf("a user created by no one has CreatedBy %q", got.CreatedBy)
	}
	if got, err := s.Staff.Lookup(ctx, "u3"); err != nil || got.TenantID != "b" || got.Role != tenants.RoleSupport || got.CreatedBy != "u1" {
		t.Errorf("Lookup = %+v, %v", got, err)
	}
	if _, err := s.Staff.Lookup(ctx, "u9"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("unknown user: %v", err)
	}
	if list, err := s.Staff.List(ctx, "a"); err != nil || len(list) != 1 || list[0].ID != "u2" {
		t.Errorf("List(a) = %+v, %v", list, err)
	}
	if list, err := s.Staff.ListAll(ctx); err != nil || len(list) != 3 || list[0].ID != "u3" || list[2].ID != "u1" {
		t.Errorf("ListAll = %+v, %v; want u3, u2, u1", list, err)
	}
	if n, err := s.Staff.Count(ctx); err != nil || n != 3 {
		t.Errorf("Count = %d, %v", n, err)
	}
}

func testTokens(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	tok := func(tenant, id string, offset int) tenants.WebhookToken {
		return tenants.WebhookToken{ID: id, TenantID: tenant, Provider: "mailchimp", Hash: "h" + id, CreatedAt: t0.Add(sec(offset))}
	}
	for _, w := range []tenants.WebhookToken{tok("a", "w1", 0), tok("a", "w2", 1), tok("b", "w3", 2)} {
		must(t, s.Tokens.Insert(ctx, w))
	}
	if got, err := s.Tokens.Lookup(ctx, "w3"); err != nil || got.TenantID != "b" || got.Hash != "hw3" {
		t.Errorf("Lookup = %+v, %v", got, err)
	}
	if err := s.Tokens.Revoke(ctx, "a", "w3", t0); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("a revokes b's token: %v, want ErrNotFound", err)
	}
	must(t, s.Tokens.Revoke(ctx, "a", "w1", t0.Add(sec(9))))
	list, err := s.Tokens.List(ctx, "a")
	if err != nil || len(list) != 2 || list[0].ID != "w2" || list[1].RevokedAt == nil || !list[1].RevokedAt.Equal(t0.Add(sec(9))) {
		t.Errorf("List(a) = %+v, %v", list, err)
	}
}

// testTokenUse: a token keeps its name, and Touch records its last use, which List and Lookup
// return; an unknown id is ErrNotFound.
func testTokenUse(t *testing.T, open Open) {
	s := open(t)
	twoTenants(t, s)
	must(t, s.Tokens.Insert(ctx, tenants.WebhookToken{ID: "w1", TenantID: "a", Provider: "mailchimp", Name: "Newsletter audience",
		Hash: "h", CreatedAt: t0}))
	if list, err := s.Tokens.List(ctx, "a"); err != nil || len(list) != 1 || list[0].Name != "Newsletter audience" || list[0].LastUsedAt != nil {
		t.Fatalf("List(a) = %+v, %v; want the named, unused token", list, err)
	}
	must(t, s.Tokens.Touch(ctx, "w1", t0.Add(sec(30))))
	if got, err := s.Tokens.Lookup(ctx, "w1"); err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(t0.Add(sec(30))) {
		t.Errorf("Lookup after Touch = %+v, %v", got, err)
	}
	if list, err := s.Tokens.List(ctx, "a"); err != nil || len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(t0.Add(sec(30))) {
		t.Errorf("List(a) after Touch = %+v, %v", list, err)
	}
	if err := s.Tokens.Touch(ctx, "nope", t0); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("Touch(unknown) = %v, want ErrNotFound", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
