package storetest

import (
	"reflect"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var transferTests = map[string]func(t *testing.T, open Open){
	"export then import gives the same data": testTransfer,
}

func testTransfer(t *testing.T, open Open) {
	src := open(t)
	if empty, err := src.Transfer.Empty(ctx); err != nil || !empty {
		t.Fatalf("a new store: Empty = %v, %v", empty, err)
	}
	twoTenants(t, src)
	must(t, src.Staff.Insert(ctx, tenants.Staff{ID: "u1", Email: "root@example.org", PasswordHash: "h", Role: tenants.RolePlatformAdmin, CreatedAt: t0}))
	must(t, src.APIKeys.Insert(ctx, tenants.APIKey{ID: "k1", TenantID: "a", Hash: "h", Scopes: []string{"all"}, CreatedAt: t0}))
	must(t, src.Forms.Insert(ctx, tenants.Form{TenantID: "a", FormID: "petition", Open: true, CreatedAt: t0, UpdatedAt: t0,
		Language: "de", DoubleOptIn: []string{tenants.ChannelEmail}, ConfirmWithin: "3d"}))
	notice := text("a", "petition", "ct_1", tenants.ConsentPrimaryPurpose, "de", "Ich stimme zu.", 0)
	must(t, src.Texts.Insert(ctx, notice))
	must(t, src.Tokens.Insert(ctx, tenants.WebhookToken{ID: "w1", TenantID: "a", Provider: "mailchimp", Hash: "h", CreatedAt: t0}))
	ingest(t, src, full("a", "r1"), record("b", tenants.KindCanvassing, "c1", 1, "ke"))
	auditFixture(t, src)
	var items []tenants.Item
	must(t, src.Transfer.Export(ctx, func(it tenants.Item) error {
		items = append(items, it)
		return nil
	}))
	// 2 tenants, 1 staff, 1 key, 1 form, 1 consent text, 1 token, 2 records, 2 ingestion + 6
	// fixture entries.
	if len(items) != 17 {
		t.Fatalf("exported %d items, want 17", len(items))
	}
	if items[0].Tenant == nil {
		t.Errorf("tenants come first: %+v", items[0])
	}
	dst := open(t)
	if n, err := dst.Transfer.Import(ctx, items); err != nil || n != 17 {
		t.Fatalf("Import = %d, %v; want 17", n, err)
	}
	srcForm, _ := src.Forms.Get(ctx, "a", "petition")
	if got, err := dst.Forms.Get(ctx, "a", "petition"); err != nil || !reflect.DeepEqual(got, srcForm) {
		t.Errorf("form after the move: %+v, %v; want %+v", got, err, srcForm)
	}
	if got, err := dst.Texts.List(ctx, "a", "petition"); err != nil || len(got) != 1 || got[0] != notice {
		t.Errorf("consent texts after the move: %+v, %v; want %+v", got, err, notice)
	}
	if n, err := dst.Transfer.Import(ctx, items); err != nil || n != 0 {
		t.Errorf("a repeated import = %d, %v; want 0 new", n, err)
	}
	if empty, err := dst.Transfer.Empty(ctx); err != nil || empty {
		t.Errorf("after the import: Empty = %v, %v", empty, err)
	}
	want, _ := src.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	got, err := dst.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("record after the move:\n%+v\nwant\n%+v", got, want)
	}
	if found, _ := dst.Records.Find(ctx, "b", []string{"ke"}); len(found) != 1 {
		t.Errorf("match keys after the move: found %d", len(found))
	}
	srcAudit, _ := src.Audit.ListAll(ctx, tenants.AuditFilter{})
	dstAudit, _ := dst.Audit.ListAll(ctx, tenants.AuditFilter{})
	if !reflect.DeepEqual(srcAudit, dstAudit) {
		t.Errorf("audit after the move:\n%+v\nwant\n%+v", dstAudit, srcAudit)
	}
	for name, check := range map[string]func(s tenants.Stores) any{
		"tenants": func(s tenants.Stores) any { v, _ := s.Tenants.List(ctx); return v },
		"staff":   func(s tenants.Stores) any { v, _ := s.Staff.ListAll(ctx); return v },
		"keys":    func(s tenants.Stores) any { v, _ := s.APIKeys.List(ctx, "a"); return v },
		"forms":   func(s tenants.Stores) any { v, _ := s.Forms.List(ctx, "a"); return v },
		"tokens":  func(s tenants.Stores) any { v, _ := s.Tokens.List(ctx, "a"); return v },
	} {
		if a, b := check(src), check(dst); !reflect.DeepEqual(a, b) {
			t.Errorf("%s after the move:\n%+v\nwant\n%+v", name, b, a)
		}
	}
}
