package admin

import (
	"context"
	"slices"
	"testing"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// countingStaff and countingKeys count their reads: a page of entries reads each once.
type countingStaff struct {
	tenants.StaffRepo
	all   []tenants.Staff
	reads *int
}

func (f countingStaff) List(_ context.Context, tenantID string) ([]tenants.Staff, error) {
	*f.reads++
	var out []tenants.Staff
	for _, s := range f.all {
		if s.TenantID == tenantID {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f countingStaff) ListAll(context.Context) ([]tenants.Staff, error) {
	*f.reads++
	return f.all, nil
}

type countingKeys struct {
	tenants.KeyRepo
	reads *int
}

func (f countingKeys) List(_ context.Context, tenantID string) ([]tenants.APIKey, error) {
	*f.reads++
	return []tenants.APIKey{{ID: "k1", TenantID: tenantID, Name: "Website of " + tenantID}}, nil
}

type namedTokens struct{ tenants.TokenRepo }

func (namedTokens) List(_ context.Context, tenantID string) ([]tenants.WebhookToken, error) {
	return []tenants.WebhookToken{{ID: "wt1", TenantID: tenantID, Provider: "sendgrid", Name: "Newsletter"}}, nil
}

func TestAuditActorNames(t *testing.T) {
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	staffReads, keyReads := 0, 0
	staff := []tenants.Staff{{ID: "u_sup", Email: "sam.support@example.org", Role: tenants.RoleSupport, TenantID: "t_1"},
		{ID: "u_root", Email: "root@example.org", Role: tenants.RolePlatformAdmin}}
	h := newHandler(Deps{Enforcer: enf, Store: Store{Staff: countingStaff{all: staff, reads: &staffReads},
		APIKeys: countingKeys{reads: &keyReads}, Tokens: namedTokens{}}})
	var entries []tenants.AuditEntry
	for range 20 {
		entries = append(entries,
			tenants.AuditEntry{TenantID: "t_1", Actor: "staff:u_sup", Action: tenants.ActionFormChanged},
			tenants.AuditEntry{TenantID: "t_1", Actor: "key:k1", Action: tenants.ActionSubmissionAccepted},
			tenants.AuditEntry{TenantID: "t_1", Actor: "staff:u_root", Action: tenants.ActionAPIKeyIssued},
			tenants.AuditEntry{TenantID: "t_1", Actor: "key:k_gone", Action: tenants.ActionSubmissionAccepted},
			tenants.AuditEntry{TenantID: "t_1", Actor: tenants.ActorSystem, Action: tenants.ActionConsentExpired},
			tenants.AuditEntry{TenantID: "t_1", Actor: "token:wt1", Action: tenants.ActionConsentRevoked})
	}
	labels := func(role, staffTenant string) []string {
		s := &session{Staff: tenants.Staff{Role: role, TenantID: staffTenant}, TenantID: "t_1"}
		rows, err := h.auditView(context.Background(), s, entries)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows[:6] {
			out = append(out, r.Actor.Label)
		}
		return out
	}
	cases := []struct {
		role, tenant string
		want         []string
	}{
		{tenants.RoleSupport, "t_1", []string{"sam.support@example.org", "API key “Website of t_1”", "Platform admin", "key:k_gone", "System", "Webhook token “Newsletter”"}},
		{tenants.RoleViewer, "t_1", []string{"s***@e***.org", "API key “Website of t_1”", "Platform admin", "key:k_gone", "System", "Webhook token “Newsletter”"}},
		{tenants.RolePlatformAdmin, "", []string{"sam.support@example.org", "API key “Website of t_1”", "root@example.org", "key:k_gone", "System", "Webhook token “Newsletter”"}},
	}
	for _, c := range cases {
		staffReads, keyReads = 0, 0
		if got := labels(c.role, c.tenant); !slices.Equal(got, c.want) {
			t.Errorf("%s sees %q, want %q", c.role, got, c.want)
		}
		if staffReads != 1 || keyReads != 1 {
			t.Errorf("%s: %d staff reads and %d key reads for a page of 100 entries, want 1 each", c.role, staffReads, keyReads)
		}
	}
}

func TestAuditDetailAndLinks(t *testing.T) {
	cases := []struct {
		e      tenants.AuditEntry
		detail string
		href   string
	}{
		{tenants.AuditEntry{Action: tenants.ActionConsentGranted, Detail: "primaryPurpose,generalContactEmail", RecordIDs: []string{"s1"}},
			"primary purpose, general contact by e-mail", "/admin/records/s1"},
		{tenants.AuditEntry{Action: tenants.ActionConsentExpired, Detail: "generalContactPhone", RecordIDs: []string{"s1"}},
			"general contact by phone", "/admin/records/s1"},
		{tenants.AuditEntry{Action: tenants.ActionConsentRevoked, Detail: "generalContact via brevo", RecordIDs: []string{"s1"}},
			"general contact by e-mail and by phone (via brevo)", "/admin/records/s1"},
		{tenants.AuditEntry{Action: tenants.ActionSubmissionAccepted, Detail: "formSubmission form=petition", RecordIDs: []string{"s1"}},
			"", "/admin/submissions/s1"},
		{tenants.AuditEntry{Action: tenants.ActionRecordAccepted, Detail: "phoneCallTask form=", RecordIDs: []string{"c1"}},
			"", "/admin/records/c1?kind=phoneCallTask"},
		{tenants.AuditEntry{Action: tenants.ActionFormChanged, Detail: "saved", RecordIDs: []string{"petition"}}, "", "/admin/forms/petition"},
		{tenants.AuditEntry{Action: tenants.ActionAPIKeyIssued, Detail: "all", RecordIDs: []string{"k1"}}, "", ""},
	}
	for _, c := range cases {
		if got := auditDetail(c.e); got != c.detail {
			t.Errorf("%s %q: detail %q, want %q", c.e.Action, c.e.Detail, got, c.detail)
		}
		if got := auditRecords(c.e, true)[0].Href; got != c.href {
			t.Errorf("%s: link %q, want %q", c.e.Action, got, c.href)
		}
		if got := auditRecords(c.e, false)[0].Href; got != "" {
			t.Errorf("%s: link %q without a tenant to open it in", c.e.Action, got)
		}
	}
}

// The UI's copies of domain names agree with the domain.
func TestMirroredNames(t *testing.T) {
	var consents []string
	for _, o := range web.ConsentOptions() {
		consents = append(consents, o.Value)
	}
	if !slices.Equal(consents, asStrings(tenants.ConsentNames())) {
		t.Errorf("web consents %v, domain %v", consents, tenants.ConsentNames())
	}
	kinds := []string{web.KindFormSubmission, web.KindDigitisation, web.KindCanvassing, web.KindPhoneCallTask}
	for i, k := range tenants.Kinds() {
		if kinds[i] != string(k) {
			t.Errorf("web kind %q, domain %q", kinds[i], k)
		}
	}
	var statuses []string
	for _, o := range web.StatusOptions() {
		statuses = append(statuses, o.Value)
	}
	for i, s := range tenants.ConsentStatuses() {
		if statuses[i] != string(s) {
			t.Errorf("web status %q, domain %q", statuses[i], s)
		}
	}
}
