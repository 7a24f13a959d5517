package provision

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var (
	ctx = context.Background()
	cli = Actor{Name: "cli"}
)

// refusals lists err's violations as "field:code"; nil when err is no refusal.
func refusals(t *testing.T, err error) []string {
	t.Helper()
	var vs tenants.Violations
	if !errors.As(err, &vs) {
		if err != nil {
			t.Fatalf("error %v is no refusal", err)
		}
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		if v.Message == "" {
			t.Errorf("%s:%s has no message", v.Field, v.Code)
		}
		out[i] = v.Field + ":" + v.Code
	}
	return out
}

// sendGridKey is an ECDSA P-256 public key as SendGrid shows it: base64 DER.
const sendGridKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE91FGY0sHgJBPv/NAOgCN1eAvlnbD65sVP6UMLDZj4+7bgvlo72LKxiuvFS3MXRsvHnOJCCCOtP2Yk+W5AFyJcQ=="

// TestValidation has one row per rule: the input breaks it alone, and the operation refuses
// it with that field and code, storing nothing.
func TestValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) } // two bytes a character
	tenant := func(in TenantInput) func(*Service) error {
		return func(s *Service) error { _, err := s.CreateTenant(ctx, cli, in); return err }
	}
	key := func(in KeyInput) func(*Service) error {
		return func(s *Service) error { _, _, err := s.IssueKey(ctx, cli, in); return err }
	}
	form := func(in FormInput) func(*Service) error {
		return func(s *Service) error { _, err := s.CreateForm(ctx, cli, in); return err }
	}
	staff := func(in StaffInput) func(*Service) error {
		return func(s *Service) error { _, err := s.CreateStaff(ctx, cli, in); return err }
	}
	token := func(in TokenInput) func(*Service) error {
		return func(s *Service) error { _, _, err := s.IssueToken(ctx, cli, in); return err }
	}
	endpoint := func(in EndpointInput) func(*Service) error {
		return func(s *Service) error { _, err := s.CreateEndpoint(ctx, cli, in); return err }
	}
	okStaff := StaffInput{Email: "ann@example.org", Password: "a-long-password", Role: tenants.RoleViewer, TenantID: "t_a"}
	withStaff := func(f func(*StaffInput)) StaffInput { in := okStaff; f(&in); return in }
	okForm := FormInput{TenantID: "t_a", FormID: "petition"}
	withForm := func(f func(*FormInput)) FormInput { in := okForm; f(&in); return in }
	okKey := KeyInput{TenantID: "t_a", Name: "Site", Scopes: []string{tenants.ScopeAll}}
	withKey := func(f func(*KeyInput)) KeyInput { in := okKey; f(&in); return in }

	for _, c := range []struct {
		name string
		run  func(*Service) error
		want []string
	}{
		{"tenant: valid", tenant(TenantInput{Name: long(200), RateLimit: 1}), nil},
		{"tenant: name required", tenant(TenantInput{Name: "  ", RateLimit: 1}), []string{"name:required"}},
		{"tenant: name counts characters", tenant(TenantInput{Name: long(201), RateLimit: 1}), []string{"name:too_long"}},
		{"tenant: rate limit at least 1", tenant(TenantInput{Name: "A", RateLimit: 0}), []string{"rate_limit:out_of_range"}},
		{"tenant: rate limit at most 1000000", tenant(TenantInput{Name: "A", RateLimit: MaxRateLimit + 1}), []string{"rate_limit:out_of_range"}},
		{"tenant: retention interval", tenant(TenantInput{Name: "A", RateLimit: 1, Retention: "soon"}), []string{"retention:invalid"}},
		{"tenant: retention basis", tenant(TenantInput{Name: "A", RateLimit: 1, Retention: "2y", RetentionFrom: "birth"}), []string{"retention_from:unknown"}},
		{"tenant status: tenant exists", func(s *Service) error { return s.SetTenantStatus(ctx, cli, "t_x", tenants.TenantSuspended) },
			[]string{"tenant:unknown"}},
		{"tenant status: known status", func(s *Service) error { return s.SetTenantStatus(ctx, cli, "t_a", "paused") },
			[]string{"status:unknown"}},
		{"tenant retention: valid", func(s *Service) error { _, err := s.SetTenantRetention(ctx, cli, "t_a", "2y", ""); return err }, nil},
		{"tenant retention: tenant exists", func(s *Service) error { _, err := s.SetTenantRetention(ctx, cli, "t_x", "", ""); return err },
			[]string{"tenant:unknown"}},
		{"tenant retention: interval", func(s *Service) error { _, err := s.SetTenantRetention(ctx, cli, "t_a", "soon", ""); return err },
			[]string{"retention:invalid"}},
		{"key: valid", key(okKey), nil},
		{"key: tenant required", key(withKey(func(in *KeyInput) { in.TenantID = "" })), []string{"tenant:required"}},
		{"key: name required", key(withKey(func(in *KeyInput) { in.Name = "" })), []string{"name:required"}},
		{"key: name counts characters", key(withKey(func(in *KeyInput) { in.Name = long(101) })), []string{"name:too_long"}},
		{"key: a scope", key(withKey(func(in *KeyInput) { in.Scopes = nil })), []string{"scope:required"}},
		{"key: known scopes", key(withKey(func(in *KeyInput) { in.Scopes = []string{"admin"} })), []string{"scope:unknown"}},
		{"form: valid", form(withForm(func(in *FormInput) { in.Name = long(200) })), nil},
		{"form: tenant exists", form(withForm(func(in *FormInput) { in.TenantID = "t_x" })), []string{"tenant:unknown"}},
		{"form: id alphabet", form(withForm(func(in *FormInput) { in.FormID = "no spaces" })), []string{"form_id:invalid"}},
		{"form: id required", form(withForm(func(in *FormInput) { in.FormID = "" })), []string{"form_id:invalid"}},
		{"form: name counts characters", form(withForm(func(in *FormInput) { in.Name = long(201) })), []string{"name:too_long"}},
		{"form: retention", form(withForm(func(in *FormInput) { in.Retention = "0d" })), []string{"retention:invalid"}},
		{"form: field named", form(withForm(func(in *FormInput) { in.Fields = []tenants.FieldDef{{Type: "text"}} })),
			[]string{"field.0.name:required"}},
		{"form: field name printable", form(withForm(func(in *FormInput) { in.Fields = []tenants.FieldDef{{Name: "a\nb", Type: "text"}} })),
			[]string{"field.0.name:invalid"}},
		{"form: field name length", form(withForm(func(in *FormInput) { in.Fields = []tenants.FieldDef{{Name: long(129), Type: "text"}} })),
			[]string{"field.0.name:invalid"}},
		{"form: field names unique", form(withForm(func(in *FormInput) {
			in.Fields = []tenants.FieldDef{{Name: "x", Type: "text"}, {Name: "x", Type: "date"}}
		})), []string{"field.1.name:taken"}},
		{"form: field type", form(withForm(func(in *FormInput) { in.Fields = []tenants.FieldDef{{Name: "x", Type: "blob"}} })),
			[]string{"field.0.type:unknown"}},
		{"form: field count", form(withForm(func(in *FormInput) {
			for i := range MaxFields + 1 {
				in.Fields = append(in.Fields, tenants.FieldDef{Name: "f" + strconv.Itoa(i), Type: "text"})
			}
		})), []string{"field:too_long"}},
		{"staff: valid", staff(okStaff), nil},
		{"staff: e-mail", staff(withStaff(func(in *StaffInput) { in.Email = "ann" })), []string{"email:invalid"}},
		{"staff: an operator's local account name", staff(withStaff(func(in *StaffInput) { in.Email, in.Operator = "admin@localhost", true })), nil},
		{"staff: an operator's e-mail is required", staff(withStaff(func(in *StaffInput) { in.Email, in.Operator = " ", true })),
			[]string{"email:required"}},
		{"staff: password length", staff(withStaff(func(in *StaffInput) { in.Password = "elevenchars" })), []string{"password:out_of_range"}},
		{"staff: an operator's password needs 10", staff(withStaff(func(in *StaffInput) { in.Password, in.Operator = "tenchars10", true })), nil},
		{"staff: an operator's password not fewer", staff(withStaff(func(in *StaffInput) { in.Password, in.Operator = "ninechars", true })),
			[]string{"password:out_of_range"}},
		{"staff: password at most 72", staff(withStaff(func(in *StaffInput) { in.Password = strings.Repeat("p", 73) })),
			[]string{"password:out_of_range"}},
		{"staff: known role", staff(withStaff(func(in *StaffInput) { in.Role = "owner" })), []string{"role:unknown"}},
		{"staff: role the actor may give", staff(withStaff(func(in *StaffInput) { in.Role, in.Roles = tenants.RoleTenantAdmin, []string{tenants.RoleViewer} })),
			[]string{"role:not_allowed"}},
		{"staff: a role needs a tenant", staff(withStaff(func(in *StaffInput) { in.TenantID = "" })), []string{"tenant:required"}},
		{"staff: the tenant exists", staff(withStaff(func(in *StaffInput) { in.TenantID = "t_x" })), []string{"tenant:unknown"}},
		{"staff: a platform admin has no tenant", staff(withStaff(func(in *StaffInput) { in.Role = tenants.RolePlatformAdmin })),
			[]string{"tenant:not_allowed"}},
		{"staff password: length", func(s *Service) error {
			return s.SetStaffPassword(ctx, cli, tenants.Staff{ID: "u_1"}, "short", true, "")
		}, []string{"password:out_of_range"}},
		{"token: valid", token(TokenInput{TenantID: "t_a", Provider: ProviderMailchimp, Name: long(100)}), nil},
		{"token: provider", token(TokenInput{TenantID: "t_a", Provider: "postmark"}), []string{"provider:unknown"}},
		{"token: name counts characters", token(TokenInput{TenantID: "t_a", Provider: ProviderMailchimp, Name: long(101)}), []string{"name:too_long"}},
		{"token: tenant", token(TokenInput{TenantID: "t_x", Provider: ProviderMailchimp}), []string{"tenant:unknown"}},
		{"endpoint: valid", endpoint(EndpointInput{TenantID: "t_a", URL: "https://hooks.example.org/cf", Events: "all"}), nil},
		{"endpoint: tenant", endpoint(EndpointInput{TenantID: "t_x", URL: "https://hooks.example.org/cf", Events: "all"}),
			[]string{"tenant:unknown"}},
		{"endpoint: an event", endpoint(EndpointInput{TenantID: "t_a", URL: "https://hooks.example.org/cf"}), []string{"event:required"}},
		{"endpoint: https", endpoint(EndpointInput{TenantID: "t_a", URL: "http://hooks.example.org/cf", Events: "all"}), []string{"url:invalid"}},
		{"endpoint: no private address", endpoint(EndpointInput{TenantID: "t_a", URL: "https://10.0.0.1/cf", Events: "all"}), []string{"url:invalid"}},
		{"sendgrid key: valid", func(s *Service) error { return s.SetSendGridKey(ctx, cli, "t_a", sendGridKey) }, nil},
		{"sendgrid key: a P-256 public key", func(s *Service) error { return s.SetSendGridKey(ctx, cli, "t_a", "not a key") },
			[]string{"public_key:invalid"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, st := newService(t)
			got := refusals(t, c.run(s))
			if !slices.Equal(got, c.want) {
				t.Fatalf("refusals %v, want %v", got, c.want)
			}
			if stored := len(st.audit) > 0; stored != (c.want == nil) {
				t.Errorf("audit entries %v; want one only when accepted", st.audit)
			}
		})
	}
}

// TestIDs: tenants and staff take their ids from tenants.NewID, with their prefixes.
func TestIDs(t *testing.T) {
	s, _ := newService(t)
	tn, err := s.CreateTenant(ctx, cli, TenantInput{Name: "Org", RateLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.CreateStaff(ctx, cli, StaffInput{Email: " Ann@Example.org", Password: "a-long-password", Role: tenants.RoleViewer, TenantID: tn.ID})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.CreateFirstAdmin(ctx, "root@example.org", "root-password-1", true)
	if err != nil {
		t.Fatal(err)
	}
	format := regexp.MustCompile(`^[tu]_[2-7a-z]{26}$`)
	for _, id := range []string{tn.ID, st.ID, first.ID} {
		if !format.MatchString(id) {
			t.Errorf("id %q is not a prefix and tenants.NewID's 26 characters", id)
		}
	}
	if st.Email != "ann@example.org" || !first.MustChangePassword || first.TenantID != "" {
		t.Errorf("staff %+v, first admin %+v", st, first)
	}
}

// TestEffects: each operation stores what it says, with one audit entry naming the actor.
func TestEffects(t *testing.T) {
	s, st := newService(t)
	a := Actor{Name: "staff:u_1", RequestID: "r1"}
	k, plain, err := s.IssueKey(ctx, a, KeyInput{TenantID: "t_a", Name: " Site ", Scopes: []string{"all", "all"}})
	if err != nil || plain == "" || k.Name != "Site" || !slices.Equal(k.Scopes, []string{"all"}) {
		t.Fatalf("IssueKey = %+v, %q, %v", k, plain, err)
	}
	if err := s.RevokeKey(ctx, a, "t_a", k.ID); err != nil || st.keys[k.ID].RevokedAt == nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if err := s.RevokeKey(ctx, a, "t_b", k.ID); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant revokes: %v", err)
	}
	f, err := s.CreateForm(ctx, a, FormInput{TenantID: "t_a", FormID: "p", Retention: "2y"})
	if err != nil || f.RetentionFrom != tenants.RetentionFromCreated || !f.CreatedAt.Equal(now) {
		t.Fatalf("CreateForm = %+v, %v", f, err)
	}
	if _, err := s.CreateForm(ctx, a, FormInput{TenantID: "t_a", FormID: "p"}); !slices.Equal(refusals(t, err), []string{"form_id:taken"}) {
		t.Errorf("second form p: %v", err)
	}
	f, err = s.SaveForm(ctx, a, FormInput{TenantID: "t_a", FormID: "p", Name: "Petition", Open: true})
	if err != nil || f.Name != "Petition" || !f.Open || f.Retention != "" || f.RetentionFrom != "" {
		t.Fatalf("SaveForm = %+v, %v", f, err)
	}
	if _, err := s.SaveForm(ctx, a, FormInput{TenantID: "t_a", FormID: "q"}); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("saving an unknown form: %v", err)
	}
	u, err := s.CreateStaff(ctx, a, StaffInput{Email: "ann@example.org", Password: "a-long-password", Role: tenants.RoleViewer, TenantID: "t_a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateStaff(ctx, a, StaffInput{Email: "ANN@example.org", Password: "a-long-password", Role: tenants.RoleViewer, TenantID: "t_a"}); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("an e-mail in use: %v, want ErrConflict", err)
	}
	if err := s.SetStaffDisabled(ctx, a, u, true); err != nil || !st.staff[u.ID].Disabled || !slices.Equal(st.ended, []string{u.ID}) {
		t.Fatalf("disable: %v, %+v, ended %v", err, st.staff[u.ID], st.ended)
	}
	tok, plain, err := s.IssueToken(ctx, a, TokenInput{TenantID: "t_a", Provider: ProviderMailchimp, Name: " Audience "})
	if err != nil || plain == "" || st.tokens[tok.ID].Name != "Audience" {
		t.Fatalf("IssueToken = %+v, %v", tok, err)
	}
	if err := s.SetTenantStatus(ctx, a, "t_a", tenants.TenantSuspended); err != nil || st.tenants["t_a"].Active() {
		t.Fatalf("suspend: %v", err)
	}
	if err := s.ClearSendGridKey(ctx, a, "t_a"); err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range st.audit {
		if e.Actor != a.Name || e.RequestID != "r1" || e.TenantID != "t_a" || !e.Time.Equal(now) {
			t.Errorf("audit entry %+v", e)
		}
		actions = append(actions, e.Action)
	}
	want := []string{tenants.ActionAPIKeyIssued, tenants.ActionAPIKeyRevoked, tenants.ActionFormChanged, tenants.ActionFormChanged,
		tenants.ActionStaffCreated, tenants.ActionStaffDisabled, tenants.ActionWebhookChanged, tenants.ActionTenantChanged,
		tenants.ActionWebhookChanged}
	if !slices.Equal(actions, want) {
		t.Errorf("audit actions %v, want %v", actions, want)
	}
}
