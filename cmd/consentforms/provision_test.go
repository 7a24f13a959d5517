package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestProvisionedIDsAgree: a tenant and a staff user get the same id format whether the CLI,
// the admin UI or the first start created them (tenants.NewID with "t_" and "u_").
func TestProvisionedIDsAgree(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	cliTenant := s.cli("tenant", "create", "--name", "Via CLI")["id"].(string)
	cliStaff := s.cli("staff", "create", "--email", "cli@example.org", "--password", "cli-password-1", "--role", "viewer",
		"--tenant", cliTenant)["id"].(string)
	root := newAdminClient(t, s)
	root.signIn("root@example.com", "root-password-1")
	root.get("/admin/tenants")
	if st, body, _ := root.post("/admin/tenants", url.Values{"name": {"Via admin"}}); st != 303 {
		t.Fatalf("admin tenant create: %d %s", st, body)
	}
	root.get("/admin/staff")
	if st, body, _ := root.post("/admin/staff", url.Values{"email": {"admin-made@example.org"}, "password": {"admin-password-1"},
		"role": {"viewer"}, "tenant": {cliTenant}}); st != 303 {
		t.Fatalf("admin staff create: %d %s", st, body)
	}

	ids := map[string]string{} // name or e-mail → id
	for _, it := range exportItems(t, s) {
		switch {
		case it.Tenant != nil:
			ids[it.Tenant.Name] = it.Tenant.ID
		case it.Staff != nil:
			ids[it.Staff.Email] = it.Staff.ID
		}
	}
	if ids["Via CLI"] != cliTenant || ids["cli@example.org"] != cliStaff {
		t.Fatalf("export %v misses the CLI's tenant %s or user %s", ids, cliTenant, cliStaff)
	}
	format := map[string]*regexp.Regexp{"t_": regexp.MustCompile(`^t_[2-7a-z]{26}$`), "u_": regexp.MustCompile(`^u_[2-7a-z]{26}$`)}
	for who, prefix := range map[string]string{"Via CLI": "t_", "Via admin": "t_", "cli@example.org": "u_",
		"admin-made@example.org": "u_", "root@example.com": "u_"} {
		if !format[prefix].MatchString(ids[who]) {
			t.Errorf("%s has id %q, want %s and tenants.NewID's 26 characters", who, ids[who], prefix)
		}
	}
}

// exportItems reads the whole store through `consentforms export`.
func exportItems(t *testing.T, s *testServer) []tenants.Item {
	t.Helper()
	var buf bytes.Buffer
	if err := run(context.Background(), []string{"export"}, s.getenv, &buf, io.Discard); err != nil {
		t.Fatal(err)
	}
	var items []tenants.Item
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it tenants.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		items = append(items, it)
	}
	return items
}

// TestMailchimpTokenNameAndLastUse: a token's name is stored and listed by the CLI and on the
// admin's "Webhook credentials" page, with its last use once Mailchimp has called with it.
func TestMailchimpTokenNameAndLastUse(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := s.tenant()
	tok := s.cli("token", "create", "--tenant", tn, "--provider", "mailchimp", "--name", "Newsletter audience")
	if tok["name"] != "Newsletter audience" {
		t.Errorf("token create printed %v, want its name", tok)
	}
	listed := func() map[string]any {
		list := s.cli("token", "list", "--tenant", tn)["tokens"].([]any)
		if len(list) != 1 {
			t.Fatalf("token list = %v, want the one token", list)
		}
		return list[0].(map[string]any)
	}
	if got := listed(); got["name"] != "Newsletter audience" || got["lastUsedAt"] != nil || got["id"] != tok["id"] {
		t.Errorf("token list before use = %v", got)
	}
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	lead := newAdminClient(t, s)
	lead.signIn("lead@example.org", "lead-password-1")
	_, page := lead.get("/admin/webhooks")
	if !strings.Contains(page, "Newsletter audience") || !regexp.MustCompile(`mailchimp-token-last-used">\s*Never`).MatchString(page) {
		t.Errorf("webhooks page does not list the token's name, unused")
	}

	path := "/api/v1/mailchimp/unsubscribe?token=" + tok["token"].(string)
	if r := s.do("POST", path, "", map[string]any{"email": "nobody@example.org"}); r.Status != 200 {
		t.Fatalf("mailchimp call: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for listed()["lastUsedAt"] == nil {
		if time.Now().After(deadline) {
			t.Fatal("the token's last use was not recorded")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, page = lead.get("/admin/webhooks")
	if regexp.MustCompile(`mailchimp-token-last-used">\s*Never`).MatchString(page) {
		t.Error("webhooks page shows the used token as never used")
	}

	lead.get("/admin/webhooks")
	if st, body, _ := lead.post("/admin/webhooks/mailchimp-tokens", url.Values{"name": {"Second audience"}}); st != 200 || !strings.Contains(body, "mailchimp-token-url") {
		t.Fatalf("admin token issue: %d", st)
	}
	if _, page = lead.get("/admin/webhooks"); !strings.Contains(page, "Second audience") {
		t.Error("webhooks page does not list the name given in the admin UI")
	}
}
