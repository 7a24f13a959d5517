package admin

import (
	"errors"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
)

// TestMirroredLimits: the forms' hints, minlength and maxlength say the domain's rules.
func TestMirroredLimits(t *testing.T) {
	for name, pair := range map[string][2]int{
		"MinPasswordLength": {web.MinPasswordLength, tenants.MinPasswordLength},
		"MaxTenantName":     {web.MaxTenantName, provision.MaxTenantName},
		"MaxKeyName":        {web.MaxKeyName, provision.MaxKeyName},
		"MaxTokenName":      {web.MaxTokenName, provision.MaxTokenName},
		"MaxFormID":         {web.MaxFormID, tenants.MaxFormIDLength},
	} {
		if pair[0] != pair[1] {
			t.Errorf("web.%s = %d, the domain's is %d", name, pair[0], pair[1])
		}
	}
}

// TestFieldErrors: refusals land beside their inputs, the first of an input wins, and any
// other error is no refusal.
func TestFieldErrors(t *testing.T) {
	errs, ok := fieldErrors(tenants.Violations{{Field: "name", Code: "required", Message: "Give a name."},
		{Field: "name", Code: "too_long", Message: "Shorter."}, {Field: "scope", Code: "unknown", Message: "Choose scopes."}})
	if !ok || len(errs) != 2 || errs["name"] != "Give a name." || errs["scope"] != "Choose scopes." {
		t.Errorf("fieldErrors = %v, %v", errs, ok)
	}
	if _, ok := fieldErrors(errors.New("disk full")); ok {
		t.Error("a store error read as a refusal")
	}
	if _, ok := fieldErrors(nil); ok {
		t.Error("nil read as a refusal")
	}
}
